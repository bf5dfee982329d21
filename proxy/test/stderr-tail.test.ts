import { describe, expect, it } from "vitest";
import { StderrTail } from "../src/stderr-tail.js";

describe("StderrTail", () => {
  it("logs each line once, joined across chunks, and keeps the last lines that say something", () => {
    const logged: string[] = [];
    const tail = new StderrTail((line) => logged.push(line));
    // Node's report of an uncaught error, in chunks cut mid-line.
    tail.push("/srv/index.js:3\n    throw new Error('GITHUB_TOKEN is not set');\n    ^\n\nError: GITHUB_TO");
    tail.push("KEN is not set\n    at Object.<anonymous> (/srv/index.js:3:11)\n    at Module._compile (node:internal)\r\n\nNode.js v20.20.2\n");
    expect(logged).toEqual([
      "/srv/index.js:3",
      "    throw new Error('GITHUB_TOKEN is not set');",
      "    ^",
      "Error: GITHUB_TOKEN is not set",
      "    at Object.<anonymous> (/srv/index.js:3:11)",
      "    at Module._compile (node:internal)",
      "Node.js v20.20.2",
    ]);
    expect(tail.describe()).toBe(`; its stderr ended: "/srv/index.js:3 / throw new Error('GITHUB_TOKEN is not set'); / Error: GITHUB_TOKEN is not set"`);
  });

  it("says nothing when the process said nothing, and includes a last line without a newline", () => {
    const tail = new StderrTail(() => undefined);
    expect(tail.describe()).toBe("");
    tail.push("fatal: no config");
    expect(tail.describe()).toBe('; its stderr ended: "fatal: no config"');
  });

  it("forgets what came before forget(): a server's start-up banner does not explain a later exit", () => {
    const tail = new StderrTail(() => undefined);
    tail.push("Starting default (STDIO) server...\n");
    tail.forget();
    expect(tail.describe()).toBe("");
    tail.push("Segmentation fault\n");
    expect(tail.describe()).toBe('; its stderr ended: "Segmentation fault"');
  });

  it("stays bounded when a process floods stderr or never writes a newline", () => {
    const tail = new StderrTail(() => undefined);
    for (let i = 0; i < 1000; i += 1) tail.push(`line ${i} ${"x".repeat(500)}\n`);
    tail.push("y".repeat(100_000));
    expect(tail.describe().length).toBeLessThan(400);
    expect(tail.describe()).toMatch(/y"$/);
  });
});
