CREATE TABLE `segments` (
	`id` text PRIMARY KEY NOT NULL,
	`acp_session_id` text NOT NULL,
	`tenant` text NOT NULL,
	`kind` text NOT NULL,
	`parent_id` text,
	`root_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`end_reason` text,
	`compression_depth` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `segments_acp_session` ON `segments` (`acp_session_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `segments_parent` ON `segments` (`parent_id`);