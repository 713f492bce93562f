CREATE TABLE `team_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invitations_team_user_key` ON `team_invitations` (`team_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `team_invitations_user_idx` ON `team_invitations` (`user_id`);--> statement-breakpoint
CREATE TABLE `team_slug_reservations` (
	`slug` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`released_at` text NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_slug_reservations_team_idx` ON `team_slug_reservations` (`team_id`);--> statement-breakpoint
CREATE INDEX `login_failures_login_address_idx` ON `login_failures` (`login_key`,`address`,`at`);