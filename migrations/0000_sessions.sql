CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant` text NOT NULL,
	`cwd` text NOT NULL,
	`additional_directories` text DEFAULT '[]' NOT NULL,
	`title` text,
	`model` text NOT NULL,
	`mode` text NOT NULL,
	`kind` text DEFAULT 'root' NOT NULL,
	`parent_id` text,
	`root_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`end_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_tenant_updated` ON `sessions` (`tenant`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_tenant_cwd_updated` ON `sessions` (`tenant`,`cwd`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_parent` ON `sessions` (`parent_id`);