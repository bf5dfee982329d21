import { describe, expect, it } from "vitest";
import { packageBreakdown, packageOf, unwantedInputs, type Metafile } from "../../../scripts/lib/bundle-breakdown.js";

const meta = (inputs: Record<string, number>): Metafile => ({
  outputs: {
    "worker.js.map": { inputs: {} },
    "worker.js": { entryPoint: "src/worker.ts", inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, { bytesInOutput: v }])) },
  },
});

describe("bundle breakdown", () => {
  it("names the package of an input, scoped or nested, and the service's own folders", () => {
    expect(packageOf("node_modules/zod/v4/core/schemas.js")).toBe("zod");
    expect(packageOf("node_modules/@modelcontextprotocol/sdk/dist/esm/types.js")).toBe("@modelcontextprotocol/sdk");
    expect(packageOf("node_modules/a/node_modules/@b/c/index.js")).toBe("@b/c");
    expect(packageOf("../../work/x/node_modules/hono/dist/hono.js")).toBe("hono");
    expect(packageOf("packages/protocol/src/index.ts")).toBe("@hermes-edge/protocol");
    expect(packageOf("src/worker.ts")).toBe("src (the service)");
    expect(packageOf("schema/index.ts")).toBe("schema");
  });

  it("sums the entry point's bytes per package, largest first, and leaves out inputs with no bytes", () => {
    const shares = packageBreakdown(meta({ "src/a.ts": 10, "src/b.ts": 5, "node_modules/zod/v4/index.js": 20, "node_modules/ajv/dist/ajv.js": 0 }));
    expect(shares).toEqual([
      { name: "zod", bytes: 20 },
      { name: "src (the service)", bytes: 15 },
    ]);
  });

  it("finds ajv and zod's non-English locales among the bundled inputs", () => {
    const found = unwantedInputs(
      meta({ "node_modules/ajv/dist/ajv.js": 3, "node_modules/fast-uri/index.js": 1, "node_modules/zod/v4/locales/en.js": 4, "node_modules/zod/v4/locales/he.js": 9, "src/ajv.ts": 1 }),
    );
    expect(found).toEqual({ ajv: ["node_modules/ajv/dist/ajv.js", "node_modules/fast-uri/index.js"], zodLocales: ["node_modules/zod/v4/locales/he.js"] });
  });
});
