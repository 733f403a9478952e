CREATE TABLE `deb_segments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`lo_package` text NOT NULL,
	`lo_version` text NOT NULL,
	`lo_arch` text NOT NULL,
	`count` integer NOT NULL,
	`text` blob NOT NULL,
	`gz` blob NOT NULL,
	`xz` blob NOT NULL,
	`xz_records` blob NOT NULL,
	`xz_blocks` integer NOT NULL,
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deb_segments_dist` ON `deb_segments` (`repo_id`,`dist`);--> statement-breakpoint
ALTER TABLE `deb_dirty` ADD `package` text;--> statement-breakpoint
ALTER TABLE `deb_dirty` ADD `version` text;--> statement-breakpoint
ALTER TABLE `deb_files` ADD `segments` text;