/**
 * `logout` and `authenticate` when the saved config cannot be used: the editor's
 * error says so in words, in `message` and in `data.details` (Toad shows only
 * `data.reason` and `data.details`).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";
import { readSavedConfig, resolveConfig, type ResolvedConfig } from "../src/config.js";
import { Credentials } from "../src/credentials.js";
import { EditorOutput } from "../src/editor-output.js";
import { createLogger } from "../src/log.js";
import { LoginState } from "../src/login-state.js";

afterAll(removeScratchDirs);

/** A LoginState whose saved config at `configPath` holds `text`; `frames` is what the editor was sent. */
function loginWithConfig(text: string) {
  const configPath = join(scratchDir("hermes-login-state-"), "config.json");
  writeFileSync(configPath, text);
  const current: ResolvedConfig = { url: "ws://127.0.0.1:8787/acp", urlSource: "default", token: "tok", tokenSource: "config", configPath };
  const credentials = new Credentials(() => resolveConfig({ flags: {}, env: {}, saved: readSavedConfig(configPath), configPath }), current);
  const stdout = new PassThrough();
  const frames: Record<string, unknown>[] = [];
  stdout.on("data", (chunk: Buffer) => frames.push(...chunk.toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)));
  const log = createLogger("error", () => undefined);
  return { configPath, frames, login: new LoginState(credentials, new EditorOutput(stdout, log), log) };
}

describe("LoginState with an unusable saved config", () => {
  it("answers logout with the reason in words, in message and data.details", () => {
    const { configPath, login } = loginWithConfig("{not json");
    const outcome = login.logout();
    expect(outcome).toEqual({
      error: {
        code: -32603,
        message: `Could not log out of hermes-edge: ${configPath} is not valid JSON; fix it, delete it, or run hermes-edge-proxy --setup. The saved token was not removed.`,
        data: { details: expect.stringContaining("Could not log out of hermes-edge") },
      },
    });
    if ("error" in outcome) expect(outcome.error.data).toEqual({ details: outcome.error.message });
  });

  it("answers authenticate with -32000, the reason in message and data.details", async () => {
    const { configPath, frames, login } = loginWithConfig("{not json");
    expect(login.startAuthenticate(4)).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    const message = `Cannot authenticate with hermes-edge: ${configPath} is not valid JSON; fix it, delete it, or run hermes-edge-proxy --setup.`;
    expect(frames).toEqual([{ jsonrpc: "2.0", id: 4, error: { code: -32000, message, data: { details: message } } }]);
  });
});
