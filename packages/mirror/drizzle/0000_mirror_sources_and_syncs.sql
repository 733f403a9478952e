CREATE TABLE `mirror_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sync_id` integer NOT NULL,
	`source_repo` text NOT NULL,
	`path` text NOT NULL,
	`reason` text NOT NULL,
	FOREIGN KEY (`sync_id`) REFERENCES `mirror_syncs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mirror_failures_sync` ON `mirror_failures` (`sync_id`,`id`);--> statement-breakpoint
CREATE TABLE `mirror_items` (
	`source_id` text NOT NULL,
	`source_repo` text NOT NULL,
	`path` text NOT NULL,
	`sha1` text NOT NULL,
	`target_path` text NOT NULL,
	PRIMARY KEY(`source_id`, `source_repo`, `path`),
	FOREIGN KEY (`source_id`) REFERENCES `mirror_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `mirror_mappings` (
	`source_id` text NOT NULL,
	`source_repo` text NOT NULL,
	`source_format` text NOT NULL,
	`target_repo_id` integer NOT NULL,
	PRIMARY KEY(`source_id`, `source_repo`),
	FOREIGN KEY (`source_id`) REFERENCES `mirror_sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mirror_mappings_target` ON `mirror_mappings` (`target_repo_id`);--> statement-breakpoint
CREATE TABLE `mirror_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`username` text NOT NULL,
	`password_sealed` text NOT NULL,
	`state` text DEFAULT 'mirroring' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`cut_over_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mirror_sources_name_unique` ON `mirror_sources` (`name`);--> statement-breakpoint
CREATE TABLE `mirror_sync_repos` (
	`sync_id` integer NOT NULL,
	`source_repo` text NOT NULL,
	`target` text NOT NULL,
	`state` text NOT NULL,
	`listed` integer DEFAULT 0 NOT NULL,
	`fetched` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`sync_id`, `source_repo`),
	FOREIGN KEY (`sync_id`) REFERENCES `mirror_syncs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `mirror_syncs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` text NOT NULL,
	`trigger` text NOT NULL,
	`state` text NOT NULL,
	`error` text DEFAULT '' NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`resumes` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `mirror_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mirror_syncs_source` ON `mirror_syncs` (`source_id`,`id`);