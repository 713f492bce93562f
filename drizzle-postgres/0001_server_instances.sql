CREATE TABLE "server_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"seen_at" bigint NOT NULL
);
