CREATE TABLE "signup_links" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text NOT NULL,
	"hint" text NOT NULL,
	"plan" text NOT NULL,
	"max_uses" integer NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text,
	"revoked_at" text,
	"created_by" text
);
--> statement-breakpoint
ALTER TABLE "signup_links" ADD CONSTRAINT "signup_links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "signup_links_token_hash_key" ON "signup_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "signup_links_kind_idx" ON "signup_links" USING btree ("kind","created_at");