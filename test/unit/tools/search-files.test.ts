import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSearchCommand, SEARCH_LINE_BYTES, searchFilesTool } from "../../../src/tools/search-files.js";
import { FakeClient, fakeContext, scriptTerminal } from "./fakes.js";

const text = (block: unknown) => (block as { content: { text: string } }).content.text;

describe("search_files", () => {
  it("runs one rg-or-grep command in the workspace and releases the terminal", async () => {
    const client = scriptTerminal(new FakeClient(), { output: "src/a.ts:3:const needle = 1;\nsrc/b.ts:9:needle()\n" });
    const ctx = fakeContext(client);
    const outcome = await searchFilesTool.run({ pattern: "needle" }, ctx);
    expect(client.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
    const create = client.requests[0]?.params;
    expect(create).toMatchObject({ sessionId: "sess-1", cwd: "/work/proj" });
    expect(create?.command).toBe(buildSearchCommand("needle", { target: ".", ignoreCase: false, fixedStrings: false, maxLines: 200 }));
    expect(outcome.output).toBe("src/a.ts:3:const needle = 1;\nsrc/b.ts:9:needle()");
    expect(outcome.content).toEqual([{ type: "content", content: { type: "text", text: outcome.output } }]);
    expect(outcome.locations).toEqual([{ path: "/work/proj" }]);
    // Searching is read-only: it never asks permission and shows no terminal.
    expect(ctx.gateRequests).toEqual([]);
    expect(ctx.updates).toEqual([]);
  });

  it("searches a subdirectory or an additional directory", async () => {
    const client = scriptTerminal(new FakeClient());
    await searchFilesTool.run({ pattern: "x", path: "/work/proj/src/" }, fakeContext(client));
    expect(client.requests[0]?.params.command).toContain("-- src; else");
    await searchFilesTool.run({ pattern: "x", path: "/work/lib" }, fakeContext(client));
    expect(client.requests[4]?.params.command).toContain("-- /work/lib; else");
  });

  it("says when nothing matched", async () => {
    const client = scriptTerminal(new FakeClient(), { exitCode: 1 });
    const outcome = await searchFilesTool.run({ pattern: "absent" }, fakeContext(client));
    expect(outcome.output).toBe('No matches for "absent" in /work/proj.');
  });

  it("keeps the first max_results lines and says there were more", async () => {
    const lines = Array.from({ length: 6 }, (_, i) => `f.ts:${i + 1}:hit`).join("\n");
    const client = scriptTerminal(new FakeClient(), { output: lines });
    const outcome = await searchFilesTool.run({ pattern: "hit", max_results: 5 }, fakeContext(client));
    expect(outcome.output.split("\n").slice(0, 5)).toEqual(["f.ts:1:hit", "f.ts:2:hit", "f.ts:3:hit", "f.ts:4:hit", "f.ts:5:hit"]);
    expect(outcome.output).toContain("[Showing the first 5 lines; narrow the search with path or glob to see the rest.]");
    expect(outcome.output).not.toContain("f.ts:6:hit");
  });

  it("cuts very long lines and truncates the editor preview", async () => {
    const long = `min.js:1:${"x".repeat(1_000)}`;
    const many = Array.from({ length: 200 }, () => `f.ts:1:${"y".repeat(60)}`).join("\n");
    const client = scriptTerminal(new FakeClient(), { output: `${long}\n${many}` });
    const outcome = await searchFilesTool.run({ pattern: "x" }, fakeContext(client));
    expect(outcome.output.split("\n")[0]).toBe(`${long.slice(0, 400)}…`);
    expect(text(outcome.content?.[0])).toMatch(/more characters not shown$/);
  });

  it("releases the terminal when the editor fails", async () => {
    const client = scriptTerminal(new FakeClient()).fail("terminal/output", "gone");
    await expect(searchFilesTool.run({ pattern: "x" }, fakeContext(client))).rejects.toThrow(/gone/);
    expect(client.methods().at(-1)).toBe("terminal/release");
  });

  it.each(["src", "/work/proj/../other", "/"])("refuses the path %j without asking the editor", async (path) => {
    const client = scriptTerminal(new FakeClient());
    await expect(searchFilesTool.run({ pattern: "x", path }, fakeContext(client))).rejects.toThrow(/relative|escapes|outside/);
    expect(client.requests).toEqual([]);
  });

  it("refuses a Windows workspace, whose shell cannot run the POSIX command", async () => {
    const client = scriptTerminal(new FakeClient());
    const ctx = { ...fakeContext(client), cwd: "C:\\proj", additionalDirectories: [] };
    await expect(searchFilesTool.run({ pattern: "x" }, ctx)).rejects.toThrow(/POSIX shell/);
    expect(client.requests).toEqual([]);
  });

  it("renders as a search, offered only with the terminal capability", () => {
    expect(searchFilesTool.kind).toBe("search");
    expect(searchFilesTool.title({ pattern: "TODO", path: "/work/proj/src", glob: "*.ts" })).toBe('Search "TODO" in /work/proj/src (*.ts)');
    expect(searchFilesTool.locations?.({ pattern: "x" }, { cwd: "/work/proj" })).toEqual([{ path: "/work/proj" }]);
    expect(searchFilesTool.available?.({ terminal: true })).toBe(true);
    expect(searchFilesTool.available?.({})).toBe(false);
  });
});

describe("buildSearchCommand in a real shell", () => {
  let root: string;
  let fakeRgBin: string;
  const sh = (command: string, path = process.env.PATH ?? "") =>
    execFileSync("sh", ["-c", command], { cwd: join(root, "ws"), encoding: "utf8", env: { ...process.env, PATH: path } });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "search-files-"));
    mkdirSync(join(root, "ws", "src"), { recursive: true });
    mkdirSync(join(root, "ws", ".git"), { recursive: true });
    writeFileSync(join(root, "ws", "src", "a.ts"), "const it's = \"quoted $HOME\";\nplain line\n");
    writeFileSync(join(root, "ws", "src", "b.md"), "it's in markdown\n");
    writeFileSync(join(root, "ws", ".git", "config"), "it's git\n");
    // A stand-in ripgrep that prints the arguments it received, one per line.
    fakeRgBin = join(root, "bin");
    mkdirSync(fakeRgBin);
    writeFileSync(join(fakeRgBin, "rg"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
    chmodSync(join(fakeRgBin, "rg"), 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const options = { target: ".", ignoreCase: false, fixedStrings: true, maxLines: 50 };

  it("passes the pattern to ripgrep as one literal word", () => {
    const out = sh(buildSearchCommand(`it's "$HOME" $(id)`, { ...options, glob: "*.ts" }), `${fakeRgBin}:${process.env.PATH}`);
    expect(out.split("\n")).toEqual([
      "--line-number",
      "--no-heading",
      "--color",
      "never",
      "--max-columns",
      "400",
      "--fixed-strings",
      "--glob",
      "*.ts",
      "-e",
      `it's "$HOME" $(id)`,
      "--",
      "",
    ]);
  });

  it("falls back to grep -rn when ripgrep is missing", () => {
    const withoutRg = process.env.PATH ?? "";
    // Where a real ripgrep is installed this branch cannot run; the stand-in test covers the other one.
    if (sh("command -v rg || true", withoutRg) !== "") return;
    expect(sh(buildSearchCommand("it's", options), withoutRg).split("\n").sort()).toEqual(["", "./src/a.ts:1:const it's = \"quoted $HOME\";", "./src/b.md:1:it's in markdown"]);
    expect(sh(buildSearchCommand("it's", { ...options, glob: "*.md" }), withoutRg)).toBe("./src/b.md:1:it's in markdown\n");
    expect(sh(buildSearchCommand("PLAIN", { ...options, ignoreCase: true, target: "src" }), withoutRg)).toBe("src/a.ts:2:plain line\n");
    expect(sh(buildSearchCommand("quoted \\$HOME|markdown", { ...options, fixedStrings: false }), withoutRg).split("\n")).toHaveLength(3);
    expect(sh(buildSearchCommand("line", { ...options, maxLines: 0 }), withoutRg)).toBe("./src/a.ts:2:plain line\n");
  });

  it("cuts long lines in the shell, so a match in a minified file cannot push the start of the output past the editor's byte limit", () => {
    const withoutRg = process.env.PATH ?? "";
    if (sh("command -v rg || true", withoutRg) !== "") return;
    mkdirSync(join(root, "ws", "dist"));
    writeFileSync(join(root, "ws", "dist", "app.min.js"), `var needle=1;${"x=1;".repeat(500_000)}\n`);
    try {
      const out = sh(buildSearchCommand("needle", { ...options, target: "dist" }), withoutRg);
      expect(out.startsWith("dist/app.min.js:1:var needle=1;x=1;")).toBe(true);
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(SEARCH_LINE_BYTES + 1);
    } finally {
      rmSync(join(root, "ws", "dist"), { recursive: true, force: true });
    }
  });
});
