CREATE TABLE `deb_blobs` (
	`sha256` text PRIMARY KEY NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `deb_dirty` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`component` text NOT NULL,
	`arch` text NOT NULL,
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deb_dirty_unit` ON `deb_dirty` (`repo_id`,`dist`,`component`,`arch`);--> statement-breakpoint
CREATE TABLE `deb_dists` (
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`generation` integer NOT NULL,
	`built_at` integer NOT NULL,
	PRIMARY KEY(`repo_id`, `dist`),
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `deb_entries` (
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`component` text NOT NULL,
	`package_id` integer NOT NULL,
	PRIMARY KEY(`repo_id`, `dist`, `component`, `package_id`),
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`package_id`) REFERENCES `deb_packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `deb_files` (
	`repo_id` integer NOT NULL,
	`dist` text NOT NULL,
	`generation` integer NOT NULL,
	`path` text NOT NULL,
	`size` integer NOT NULL,
	`md5` text NOT NULL,
	`sha256` text NOT NULL,
	`sha512` text NOT NULL,
	PRIMARY KEY(`repo_id`, `dist`, `generation`, `path`),
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deb_files_sha256` ON `deb_files` (`sha256`);--> statement-breakpoint
CREATE TABLE `deb_packages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo_id` integer NOT NULL,
	`package` text NOT NULL,
	`version` text NOT NULL,
	`architecture` text NOT NULL,
	`filename` text NOT NULL,
	`size` integer NOT NULL,
	`md5` text NOT NULL,
	`sha256` text NOT NULL,
	`control` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`repo_id`) REFERENCES `repos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deb_packages_identity` ON `deb_packages` (`repo_id`,`package`,`version`,`architecture`);