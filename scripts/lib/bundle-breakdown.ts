/**
 * Which packages the Worker bundle is made of: the bytes each input leaves in
 * the output, from the esbuild metafile that `wrangler deploy --dry-run
 * --metafile FILE` writes, summed per npm package.
 * @module
 */

/** The part of an esbuild metafile read here. */
export interface Metafile {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface PackageShare {
  name: string;
  bytes: number;
}

/** `node_modules/@scope/name/…` → `@scope/name`; the service's own folders by name. */
export function packageOf(input: string): string {
  const modules = input.match(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (modules) return modules[modules.length - 1]!.replace(/^\/?node_modules\//, "");
  if (input.startsWith("packages/protocol/")) return "@hermes-edge/protocol";
  if (input.startsWith("src/")) return "src (the service)";
  return input.split("/")[0]!;
}

/** Bytes in the entry point's output per package, largest first. */
export function packageBreakdown(meta: Metafile): PackageShare[] {
  const output = Object.values(meta.outputs).find((o) => o.entryPoint !== undefined);
  if (!output) throw new Error("the metafile has no entry-point output");
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    if (bytesInOutput === 0) continue;
    const name = packageOf(input);
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes].map(([name, b]) => ({ name, bytes: b })).sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
}

/** The inputs that reached the output, for checks such as "no ajv". */
export function bundledInputs(meta: Metafile): string[] {
  const output = Object.values(meta.outputs).find((o) => o.entryPoint !== undefined);
  return output ? Object.entries(output.inputs).filter(([, v]) => v.bytesInOutput > 0).map(([k]) => k) : [];
}

/** Issue 25, target 7: the upload's size (wrangler's "Total Upload: … / gzip: …"). */
export const BUNDLE_BUDGET = { rawBytes: 1.8 * 1024 * 1024, gzipBytes: 350 * 1024 } as const;

/** The MCP SDK's ajv validator and its dependencies: stubbed out (src/mcp/ajv-unavailable.ts). */
const AJV = /(?:^|\/)node_modules\/(?:ajv|ajv-formats|fast-uri)\//;
/** zod's message locales besides English: they come with `import { z } from "zod"`, not with `import * as z`. */
const ZOD_LOCALES = /(?:^|\/)node_modules\/zod\/v4\/locales\/(?!en\.js$)[^/]+$/;

/** Inputs that must not reach the bundle, by reason. */
export function unwantedInputs(meta: Metafile): { ajv: string[]; zodLocales: string[] } {
  const inputs = bundledInputs(meta);
  return { ajv: inputs.filter((i) => AJV.test(i)), zodLocales: inputs.filter((i) => ZOD_LOCALES.test(i)) };
}
