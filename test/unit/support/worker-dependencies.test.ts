import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeImports, workerDependencies } from "../../support/worker-dependencies.js";

const dir = mkdtempSync(join(tmpdir(), "runtime-imports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runtimeImports", () => {
  it("lists the npm packages imported at run time, once each, and none of the rest", () => {
    mkdirSync(join(dir, "src/deep"), { recursive: true });
    writeFileSync(
      join(dir, "src/a.ts"),
      [
        'import { z } from "zod";',
        'import type { Agent } from "@agentclientprotocol/sdk";',
        'export type { Hono } from "hono";',
        'import { helper } from "./deep/b.js";',
        'import { env } from "cloudflare:workers";',
        'import { join } from "node:path";',
        'import { encode } from "@hermes-edge/protocol";',
        'import { it } from "vitest";',
        'export { drizzle } from "drizzle-orm/d1";',
        'import "polyfill-thing";',
      ].join("\n"),
    );
    writeFileSync(join(dir, "src/deep/b.ts"), 'import {\n  OpenAI,\n} from "openai";\nimport { z } from "zod";\n');
    writeFileSync(join(dir, "src/deep/types.d.ts"), 'import { X } from "only-types";\n');
    expect(runtimeImports([join(dir, "src")])).toEqual(["drizzle-orm/d1", "openai", "polyfill-thing", "zod"]);
  });

  it("finds the Worker's own packages in this repository", () => {
    expect(workerDependencies(join(import.meta.dirname, "../../.."))).toEqual(expect.arrayContaining(["hono", "zod", "openai", "drizzle-orm"]));
  });
});
