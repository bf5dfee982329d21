import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

// The ACP registry's agent.schema.json (required fields, id and version
// patterns, closed `distribution`), restated so that drift fails here.
const zPackageDistribution = z.strictObject({
  package: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const zAgentManifest = z.looseObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().min(1),
  version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+/),
  description: z.string().min(1),
  repository: z.url().optional(),
  authors: z.array(z.string()).optional(),
  license: z.string().optional(),
  distribution: z
    .strictObject({ npx: zPackageDistribution.optional(), uvx: zPackageDistribution.optional(), binary: z.record(z.string(), z.unknown()).optional() })
    .refine((d) => Object.keys(d).length > 0, "at least one distribution"),
});

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));

describe("registry/agent.json", () => {
  const manifest = zAgentManifest.parse(read("../../registry/agent.json"));
  const pkg = z.object({ name: z.string(), version: z.string(), license: z.string() }).parse(read("../package.json"));

  it("follows the ACP registry schema", () => {
    expect(manifest.id).toBe("hermes-edge");
    expect(manifest.license).toBe("MIT");
  });

  it("launches this package through npx, at this package's version", () => {
    expect(manifest.distribution.npx?.package).toBe(pkg.name);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.license).toBe(pkg.license);
  });
});
