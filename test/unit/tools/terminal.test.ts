import { afterEach, describe, expect, it, vi } from "vitest";
import { terminalTool } from "../../../src/tools/terminal.js";
import { FakeClient, fakeContext, HANG, scriptTerminal } from "./fakes.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("terminal", () => {
  it("creates, shows, waits, reads and releases the terminal", async () => {
    const client = new FakeClient();
    const ctx = fakeContext(client);
    let updatesWhileWaiting = -1;
    scriptTerminal(client, {
      output: "ok\n",
      wait: () => {
        updatesWhileWaiting = ctx.updates.length;
        return { exitCode: 0 };
      },
    });
    const outcome = await terminalTool.run({ command: "npm test" }, ctx);
    expect(client.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
    expect(client.requests[0]?.params).toEqual({ sessionId: "sess-1", command: "npm test", cwd: "/work/proj", outputByteLimit: 65_536 });
    expect(client.requests.slice(1).map((r) => r.params)).toEqual([
      { sessionId: "sess-1", terminalId: "term-1" },
      { sessionId: "sess-1", terminalId: "term-1" },
      { sessionId: "sess-1", terminalId: "term-1" },
    ]);
    // The editor shows the live terminal before the command finishes.
    expect(updatesWhileWaiting).toBe(1);
    expect(ctx.updates).toEqual([{ sessionUpdate: "tool_call_update", toolCallId: "call-1", content: [{ type: "terminal", terminalId: "term-1" }] }]);
    expect(outcome.content).toEqual([{ type: "terminal", terminalId: "term-1" }]);
    expect(outcome.output).toBe("Exit code 0.\nok\n");
    expect(outcome.rawOutput).toEqual({ exitCode: 0, signal: null, timedOut: false, truncated: false });
    expect(ctx.gateRequests).toEqual([
      {
        kind: "execute",
        paths: ["/work/proj"],
        title: "$ npm test",
        command: "npm test",
        content: [{ type: "content", content: { type: "text", text: "npm test" } }],
      },
    ]);
  });

  it("reports a failing exit code and truncation to the model and the editor", async () => {
    const client = scriptTerminal(new FakeClient(), { exitCode: 2, output: "…tail", truncated: true });
    const outcome = await terminalTool.run({ command: "make" }, fakeContext(client));
    expect(outcome.output).toBe("Exit code 2.\n[Output truncated: the editor kept only the last 65,536 bytes.]\n…tail");
    expect(outcome.content).toEqual([
      { type: "terminal", terminalId: "term-1" },
      { type: "content", content: { type: "text", text: "Exit code 2." } },
    ]);
  });

  it("reports a signal and an empty output", async () => {
    const client = scriptTerminal(new FakeClient(), { exitCode: null, signal: "SIGSEGV" });
    const outcome = await terminalTool.run({ command: "./crash" }, fakeContext(client));
    expect(outcome.output).toBe("Killed by signal SIGSEGV.\n(no output)");
  });

  it("kills, reads and releases a command that overruns its timeout", async () => {
    vi.useFakeTimers();
    const client = scriptTerminal(new FakeClient(), { wait: HANG, output: "partial" });
    const run = terminalTool.run({ command: "sleep 999", timeout: 5 }, fakeContext(client));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(client.methods()).toEqual(["terminal/create", "terminal/wait_for_exit"]);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await run;
    expect(client.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/kill", "terminal/output", "terminal/release"]);
    expect(outcome.output).toBe("Timed out after 5 s; the command was killed.\npartial");
    expect(outcome.rawOutput).toMatchObject({ timedOut: true });
  });

  it("defaults to a 120 s timeout", async () => {
    vi.useFakeTimers();
    const client = scriptTerminal(new FakeClient(), { wait: HANG });
    const run = terminalTool.run({ command: "sleep 999" }, fakeContext(client));
    await vi.advanceTimersByTimeAsync(119_999);
    expect(client.methods()).not.toContain("terminal/kill");
    await vi.advanceTimersByTimeAsync(1);
    await expect(run).resolves.toMatchObject({ output: expect.stringMatching(/^Timed out after 120 s/) });
  });

  it("kills and releases on cancel", async () => {
    const client = scriptTerminal(new FakeClient(), { wait: HANG });
    const ctx = fakeContext(client);
    const run = terminalTool.run({ command: "sleep 999" }, ctx);
    await vi.waitFor(() => expect(client.methods()).toContain("terminal/wait_for_exit"));
    ctx.abort();
    await expect(run).rejects.toThrow("Cancelled by the user.");
    expect(client.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/kill", "terminal/release"]);
  });

  it("kills and releases a terminal created after the turn was cancelled", async () => {
    const client = new FakeClient();
    const ctx = fakeContext(client);
    scriptTerminal(client).on("terminal/create", () => {
      ctx.abort();
      return { terminalId: "term-1" };
    });
    await expect(terminalTool.run({ command: "ls" }, ctx)).rejects.toThrow("Cancelled by the user.");
    expect(client.methods()).toEqual(["terminal/create", "terminal/kill", "terminal/release"]);
  });

  it("releases when the editor fails while waiting or reading output", async () => {
    const waiting = scriptTerminal(new FakeClient()).fail("terminal/wait_for_exit", "terminal gone");
    await expect(terminalTool.run({ command: "ls" }, fakeContext(waiting))).rejects.toThrow(/could not wait for the command to exit: terminal gone/);
    expect(waiting.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/release"]);

    const reading = scriptTerminal(new FakeClient()).fail("terminal/output", "boom");
    await expect(terminalTool.run({ command: "ls" }, fakeContext(reading))).rejects.toThrow(/could not read the command's output: boom/);
    expect(reading.methods()).toEqual(["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]);
  });

  it("reports the original failure even if the release fails too", async () => {
    const client = scriptTerminal(new FakeClient()).fail("terminal/wait_for_exit", "first").fail("terminal/release", "second");
    await expect(terminalTool.run({ command: "ls" }, fakeContext(client))).rejects.toThrow(/first/);
  });

  it("has nothing to release when the editor cannot create the terminal", async () => {
    const client = scriptTerminal(new FakeClient()).fail("terminal/create", "no shell");
    await expect(terminalTool.run({ command: "ls" }, fakeContext(client))).rejects.toThrow("The editor could not start `ls`: no shell [-32603]");
    expect(client.methods()).toEqual(["terminal/create"]);
  });

  it("does not start the command when the gate denies", async () => {
    const client = scriptTerminal(new FakeClient());
    await expect(terminalTool.run({ command: "rm -rf /" }, fakeContext(client, { deny: "Denied." }))).rejects.toThrow("Denied.");
    expect(client.requests).toEqual([]);
  });

  it.each(["sub", "/work/proj/../..", "/usr/bin"])("refuses the working directory %j without asking the editor", async (cwd) => {
    const client = scriptTerminal(new FakeClient());
    const ctx = fakeContext(client);
    await expect(terminalTool.run({ command: "ls", cwd }, ctx)).rejects.toThrow(/relative|escapes|outside/);
    expect(client.requests).toEqual([]);
    expect(ctx.gateRequests).toEqual([]);
  });

  it("runs in a given directory inside the workspace", async () => {
    const client = scriptTerminal(new FakeClient());
    await terminalTool.run({ command: "ls", cwd: "/work/lib/sub/" }, fakeContext(client));
    expect(client.requests[0]?.params).toMatchObject({ cwd: "/work/lib/sub" });
  });

  it("renders as `$ command` of kind execute, offered only with the terminal capability", () => {
    expect(terminalTool.kind).toBe("execute");
    expect(terminalTool.title({ command: "npm test" })).toBe("$ npm test");
    expect(terminalTool.available?.({ terminal: true })).toBe(true);
    expect(terminalTool.available?.({ fs: { readTextFile: true, writeTextFile: true } })).toBe(false);
  });

  it("bounds the timeout", () => {
    expect(terminalTool.inputSchema.safeParse({ command: "x", timeout: 600 }).success).toBe(true);
    expect(terminalTool.inputSchema.safeParse({ command: "x", timeout: 601 }).success).toBe(false);
    expect(terminalTool.inputSchema.safeParse({ command: "x", timeout: 0 }).success).toBe(false);
    expect(terminalTool.inputSchema.safeParse({ command: "" }).success).toBe(false);
  });
});
