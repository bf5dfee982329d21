/**
 * Where `npm run deploy` gets a secret's value: the environment, else stdin
 * when it is piped (`printf %s "$KEY" | npm run deploy`), else a prompt on the
 * terminal that does not echo. Never from the command line, which other users
 * of the machine can read.
 * @module
 */
import { createInterface } from "node:readline";
import { Writable } from "node:stream";

let piped: Promise<string> | undefined;

/** All of piped stdin, read once. */
function pipedStdin(): Promise<string> {
  piped ??= new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => (text += chunk));
    process.stdin.once("end", () => resolve(text));
    process.stdin.once("error", reject);
  });
  return piped;
}

export async function hiddenPrompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    return await new Promise<string>((resolve) => {
      rl.question(question, (answer) => resolve(answer));
      muted = true;
    });
  } finally {
    muted = false;
    process.stderr.write("\n");
    rl.close();
  }
}

export interface SecretSource {
  value: string;
  from: "environment" | "stdin" | "prompt";
}

/** Undefined when no value is available (nothing in the environment, an empty pipe, an empty answer). */
export async function readSecret(name: string, env: NodeJS.ProcessEnv = process.env): Promise<SecretSource | undefined> {
  const fromEnv = env[name]?.trim();
  if (fromEnv) return { value: fromEnv, from: "environment" };
  if (!process.stdin.isTTY) {
    const value = (await pipedStdin()).trim();
    return value ? { value, from: "stdin" } : undefined;
  }
  const value = (await hiddenPrompt(`${name} (input hidden, empty to skip): `)).trim();
  return value ? { value, from: "prompt" } : undefined;
}
