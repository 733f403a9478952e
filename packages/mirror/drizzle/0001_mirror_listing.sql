CREATE TABLE `mirror_listing` (
	`sync_id` integer NOT NULL,
	`source_repo` text NOT NULL,
	`path` text NOT NULL,
	`sha1` text,
	`md5` text,
	`sha256` text,
	`sha512` text,
	`deferred` text,
	PRIMARY KEY(`sync_id`, `source_repo`, `path`),
	FOREIGN KEY (`sync_id`) REFERENCES `mirror_syncs`(`id`) ON UPDATE no action ON DELETE cascade
);
