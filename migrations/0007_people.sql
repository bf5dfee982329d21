CREATE TABLE `session_shares` (
	`session_id` text NOT NULL,
	`tenant` text NOT NULL,
	`user` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`session_id`, `user`)
);
--> statement-breakpoint
CREATE INDEX `session_shares_tenant_user` ON `session_shares` (`tenant`,`user`);--> statement-breakpoint
CREATE TABLE `session_links` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`tenant` text NOT NULL,
	`role` text NOT NULL,
	`sha256` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_links_sha256` ON `session_links` (`sha256`);--> statement-breakpoint
CREATE INDEX `session_links_session` ON `session_links` (`session_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `access_root` text;--> statement-breakpoint
CREATE INDEX `sessions_tenant_owner_updated` ON `sessions` (`tenant`,`owner`,`updated_at`,`id`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `user` text;