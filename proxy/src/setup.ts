/**
 * `--setup`: ask for the URL and token on the terminal (prompts on stderr, so
 * it also works when an editor runs it as a terminal auth method), verify them
 * against the service, and save them in the per-user config file.
 * @module
 */
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { probeService } from "./check.js";
import { ConfigError, normalizeUrl, saveUrlAndToken, type ResolvedConfig } from "./config.js";

export interface SetupOptions {
  readonly current: ResolvedConfig;
  readonly headers: Readonly<Record<string, string>>;
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly prompt: (text: string) => void;
}

/** Reads answers line by line; on a TTY, typed characters can be hidden. */
function lineReader(input: SetupOptions["input"], prompt: (text: string) => void) {
  let muted = false;
  // readline echoes what the user types to its output; routing that echo
  // through here lets the token stay off the screen.
  const echo = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) prompt(chunk.toString());
      callback();
    },
  });
  const rl = createInterface({ input, output: echo, terminal: input.isTTY === true });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async ask(question: string, hidden = false): Promise<string | undefined> {
      // readline must own the prompt: it redraws prompt + input on edits
      // (backspace), and would otherwise erase a question it does not know.
      rl.setPrompt(question);
      rl.prompt();
      muted = hidden && input.isTTY === true;
      const next = await lines.next();
      if (muted) {
        muted = false;
        prompt("\n");
      }
      return next.done ? undefined : next.value.trim();
    },
    close: () => rl.close(),
  };
}

export async function runSetup(options: SetupOptions): Promise<number> {
  const { current, prompt } = options;
  const reader = lineReader(options.input, prompt);
  try {
    prompt(`hermes-edge setup: the URL and token are saved in ${current.configPath} (readable by you only).\n`);
    let url: string | undefined;
    while (url === undefined) {
      const answer = await reader.ask(`Service URL [${current.url}]: `);
      if (answer === undefined) return aborted(prompt);
      try {
        url = normalizeUrl(answer === "" ? current.url : answer);
      } catch (err) {
        prompt(`${err instanceof ConfigError ? err.message : String(err)}\n`);
        if (options.input.isTTY !== true) return 1;
      }
    }
    const keep = current.token !== undefined ? " (Enter keeps the current one)" : "";
    const typed = await reader.ask(`Token${keep}: `, true);
    if (typed === undefined) return aborted(prompt);
    const token = typed === "" ? current.token : typed;

    prompt(`Checking ${url} ...\n`);
    const result = await probeService({ url, token, headers: options.headers });
    if (result.ok) {
      saveUrlAndToken(current.configPath, url, token);
      prompt(`Connected to ${result.agentName ?? "the service"} ${result.agentVersion ?? ""}; token accepted.\nSaved to ${current.configPath}\n`);
      return 0;
    }
    prompt(`Check failed: ${result.message}\n`);
    if (result.reason === "unauthorized") {
      prompt("Nothing was saved. Run --setup again with a valid token.\n");
      return 1;
    }
    const save = await reader.ask("Save these settings anyway? [y/N]: ");
    if (save?.toLowerCase() === "y" || save?.toLowerCase() === "yes") {
      saveUrlAndToken(current.configPath, url, token);
      prompt(`Saved to ${current.configPath}, unverified.\n`);
    } else {
      prompt("Nothing was saved.\n");
    }
    // Not verified: a non-zero status tells an editor's terminal-auth flow it did not work yet.
    return 1;
  } finally {
    reader.close();
  }
}

function aborted(prompt: (text: string) => void): number {
  prompt("\nSetup aborted; nothing was saved.\n");
  return 1;
}
