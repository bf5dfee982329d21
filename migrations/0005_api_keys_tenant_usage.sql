CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant` text NOT NULL,
	`label` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_sha256` ON `api_keys` (`sha256`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_created` ON `api_keys` (`tenant`,`created_at`);--> statement-breakpoint
CREATE TABLE `tenant_usage` (
	`tenant` text NOT NULL,
	`day` text NOT NULL,
	`turns` integer DEFAULT 0 NOT NULL,
	`model_calls` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`tool_calls` integer DEFAULT 0 NOT NULL,
	`subagents` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant`, `day`)
);
