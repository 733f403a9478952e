CREATE TABLE `generations` (
	`id` integer PRIMARY KEY NOT NULL,
	`access` integer DEFAULT 0 NOT NULL,
	`assets` integer DEFAULT 0 NOT NULL
);

--> statement-breakpoint
INSERT INTO `generations` (`id`) VALUES (1);