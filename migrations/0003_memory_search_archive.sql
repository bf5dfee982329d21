CREATE TABLE `project_memory` (
	`tenant` text NOT NULL,
	`cwd` text NOT NULL,
	`entries` text DEFAULT '[]' NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant`, `cwd`)
);
--> statement-breakpoint
CREATE TABLE `search_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant` text NOT NULL,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`text` text NOT NULL,
	`digest` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_entries_session_digest` ON `search_entries` (`session_id`,`digest`);--> statement-breakpoint
CREATE INDEX `search_entries_tenant` ON `search_entries` (`tenant`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `archived` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `sessions_tenant_archived_updated` ON `sessions` (`tenant`,`archived`,`updated_at`,`id`);