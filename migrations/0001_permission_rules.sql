CREATE TABLE `permission_rules` (
	`tenant` text NOT NULL,
	`cwd` text NOT NULL,
	`rule` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant`, `cwd`, `rule`)
);
