import { applyD1Migrations, env } from "cloudflare:test";

// Storage is isolated per test file; each file starts with a migrated D1.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
