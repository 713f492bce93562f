ALTER TABLE "api_keys" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "configs" ADD COLUMN "stored_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "configs" SET "stored_bytes" = (SELECT coalesce(sum(octet_length("data")), 0) FROM "config_versions" WHERE "config_versions"."config_id" = "configs"."id");