ALTER TABLE `api_keys` ADD `read_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `configs` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `configs` SET `stored_bytes` = (SELECT coalesce(sum(length(`data`)), 0) FROM `config_versions` WHERE `config_versions`.`config_id` = `configs`.`id`);