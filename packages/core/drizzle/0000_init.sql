CREATE TABLE `assets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo_id` integer NOT NULL,
	`path` text NOT NULL,
	`blob_key` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`sha1` text,
	`md5` text,
	`content_type` text NOT NULL,
	`uploader` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assets_repo_path` ON `assets` (`repo_id`,`path`);--> statement-breakpoint
CREATE INDEX `assets_blob` ON `assets` (`blob_key`);--> statement-breakpoint
CREATE TABLE `permissions` (
	`repo_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`level` text NOT NULL,
	PRIMARY KEY(`repo_id`, `user_id`),
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `permissions_user` ON `permissions` (`user_id`);--> statement-breakpoint
CREATE TABLE `repos` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`anonymous_read` integer DEFAULT false NOT NULL,
	`overwrite` text DEFAULT 'deny' NOT NULL,
	`locked_by` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `repos_name_unique` ON `repos` (`name`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`email` text DEFAULT '' NOT NULL,
	`kind` text DEFAULT 'local' NOT NULL,
	`is_admin` integer DEFAULT false NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`password_hash` text,
	`credentials_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (`username`);