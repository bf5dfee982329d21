/**
 * Screenshots of the main states, saved under one temporary folder per run
 * and printed, so a person can look at what the tests saw.
 * @module
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";

let folder: string | undefined;

export async function screenshot(page: Page, name: string): Promise<string> {
  folder ??= mkdtempSync(join(tmpdir(), "hermes-edge-screenshots-"));
  const path = join(folder, `${name}.png`);
  await page.screenshot({ path });
  console.log(`screenshot: ${path}`);
  return path;
}
