CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`state` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`progress` text DEFAULT '{}' NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_active_key` ON `jobs` (`key`) WHERE state in ('running', 'cancelling');--> statement-breakpoint
CREATE INDEX `jobs_kind_created` ON `jobs` (`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `storage_move_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`move_id` text NOT NULL,
	`asset_id` integer NOT NULL,
	`key` text NOT NULL,
	`reason` text NOT NULL,
	FOREIGN KEY (`move_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `storage_move_failures_move` ON `storage_move_failures` (`move_id`,`id`);