ALTER TABLE `audit_events` ADD `seq` integer;--> statement-breakpoint
UPDATE `audit_events` SET `seq` = `numbered`.`n` FROM (SELECT `id` AS `nid`, row_number() OVER (ORDER BY `id`) AS `n` FROM `audit_events`) AS `numbered` WHERE `audit_events`.`id` = `numbered`.`nid`;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_seq_key` ON `audit_events` (`seq`);
