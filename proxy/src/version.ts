/**
 * The package version, read from the package's own package.json so that
 * `--version`, `clientInfo` and the registry manifest cannot drift apart.
 * @module
 */
import { readFileSync } from "node:fs";
import { z } from "zod";

const zPackageJson = z.object({ name: z.string(), version: z.string() });

function readPackage(): z.infer<typeof zPackageJson> {
  // dist/version.js and src/version.ts both sit one level below package.json.
  const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  return zPackageJson.parse(JSON.parse(text));
}

const pkg = readPackage();

export const PACKAGE_NAME: string = pkg.name;
export const PACKAGE_VERSION: string = pkg.version;
