CREATE TABLE `user_usage` (
	`tenant` text NOT NULL,
	`user` text NOT NULL,
	`day` text NOT NULL,
	`turns` integer DEFAULT 0 NOT NULL,
	`model_calls` integer DEFAULT 0 NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`tool_calls` integer DEFAULT 0 NOT NULL,
	`subagents` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant`, `day`, `user`)
);
