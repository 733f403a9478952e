CREATE TABLE `publish_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`public_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `publish_devices_user` ON `publish_devices` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `publish_enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`device_code_hash` text NOT NULL,
	`user_code_hash` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`public_key` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`device_id` text,
	`last_poll_at` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `publish_enrollments_device_code` ON `publish_enrollments` (`device_code_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `publish_enrollments_user_code` ON `publish_enrollments` (`user_code_hash`);--> statement-breakpoint
CREATE TABLE `publish_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`repo` text NOT NULL,
	`proof` text NOT NULL,
	`user_id` text,
	`actor` text NOT NULL,
	`device_id` text,
	`device_name` text,
	`trust_id` text,
	`trust_name` text,
	`claims` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`closed_at` integer,
	`closed_reason` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`device_id`) REFERENCES `publish_devices`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`trust_id`) REFERENCES `publish_trusts`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `publish_sessions_created` ON `publish_sessions` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `publish_sessions_user` ON `publish_sessions` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `publish_sessions_device` ON `publish_sessions` (`device_id`);--> statement-breakpoint
CREATE INDEX `publish_sessions_trust` ON `publish_sessions` (`trust_id`);--> statement-breakpoint
CREATE INDEX `publish_sessions_expires` ON `publish_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `publish_trusts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`issuer` text NOT NULL,
	`audience` text NOT NULL,
	`claims` text NOT NULL,
	`jwks` text NOT NULL,
	`repos` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `publish_trusts_name_unique` ON `publish_trusts` (`name`);