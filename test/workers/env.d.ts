import type { D1Migration } from "cloudflare:test";
import type { Env as HermesEnv } from "../../src/env.js";

declare global {
  namespace Cloudflare {
    interface Env extends HermesEnv {
      MOCK_URL: string;
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
