CREATE TABLE `deb_segments` (
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`component` text NOT NULL,
	`arch` text NOT NULL,
	`lo_package` text NOT NULL,
	`lo_version` text NOT NULL,
	`lo_arch` text NOT NULL,
	`count` integer NOT NULL,
	`text` blob NOT NULL,
	`gz` blob NOT NULL,
	`xz` blob NOT NULL,
	`xz_records` blob NOT NULL,
	`xz_blocks` integer NOT NULL,
	PRIMARY KEY(`repo_id`, `dist`, `component`, `arch`, `lo_package`, `lo_version`, `lo_arch`),
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `deb_dirty` ADD `package` text;--> statement-breakpoint
ALTER TABLE `deb_dirty` ADD `version` text;