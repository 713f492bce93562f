CREATE TABLE `signup_links` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`token_hash` text NOT NULL,
	`hint` text NOT NULL,
	`plan` text NOT NULL,
	`max_uses` integer NOT NULL,
	`uses` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`created_by` text,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `signup_links_token_hash_key` ON `signup_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `signup_links_kind_idx` ON `signup_links` (`kind`,`created_at`);