// Tool arguments are strict: a key the tool does not declare (a misspelt
// option, `contents` for `content`) fails the call with the unknown and the
// accepted keys, before the tool runs; the schema the model is shown says the
// same. An MCP tool's own schema decides for itself and passes keys through.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runToolCall, toolSpecs } from "../../../src/agent/tool-runner.js";
import { delegateTaskTool } from "../../../src/delegate/delegate-task.js";
import type { McpToolInfo } from "../../../src/mcp/mcp-link.js";
import { mcpTool } from "../../../src/mcp/mcp-tool.js";
import { ALL_TOOLS } from "../../../src/tools/index.js";
import type { AnyTool, Tool } from "../../../src/tools/tool.js";
import { FakeClient, fakeContext } from "../tools/fakes.js";

async function call(name: string, args: unknown, tools: AnyTool[] = [...ALL_TOOLS, delegateTaskTool], client = new FakeClient()) {
  const updates: SessionUpdate[] = [];
  const ctx = fakeContext(client);
  const output = await runToolCall({ id: "call-1", name, arguments: JSON.stringify(args) }, tools, { emit: (u) => updates.push(u), toolContext: () => ctx }, ctx.signal);
  return { output, updates, client };
}

describe("unknown keys in a tool's arguments", () => {
  it("fails write_file called with `contents` for `content`, naming both, and writes nothing", async () => {
    const { output, updates, client } = await call("write_file", { path: "/work/proj/a.ts", contents: "x" });
    const reason =
      'Invalid arguments for write_file: unknown key "contents" (accepted keys: path, content); content: Invalid input: expected string, received undefined';
    expect(output).toBe(`Error: ${reason}`);
    expect(client.requests).toEqual([]);
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "call-1",
        title: "write_file",
        kind: "other",
        status: "failed",
        rawInput: { path: "/work/proj/a.ts", contents: "x" },
        content: [{ type: "content", content: { type: "text", text: reason } }],
      },
    ]);
  });

  it("fails a call whose arguments are otherwise valid but carry a misspelt option, instead of ignoring it", async () => {
    const { output, client } = await call("read_file", { path: "/work/proj/a.ts", lines: 5, offset: 2 });
    expect(output).toBe('Error: Invalid arguments for read_file: unknown keys "lines", "offset" (accepted keys: path, line, limit)');
    expect(client.requests).toEqual([]);
  });

  it("names an unknown key inside a list item by its path", async () => {
    const { output } = await call("todo", { todos: [{ content: "a", status: "pending" }, { content: "b", status: "pending", title: "B" }] });
    expect(output).toBe('Error: Invalid arguments for todo: unknown key "title" in todos.1 (accepted keys: id, content, status, priority)');
  });

  it("checks delegate_task's nested task specs too", async () => {
    const { output } = await call("delegate_task", { tasks: [{ goal: "g", timeout: 5 }] });
    expect(output).toBe(
      'Error: Invalid arguments for delegate_task: unknown key "timeout" in tasks.0 (accepted keys: goal, context, role, timeout_seconds, model)',
    );
  });

  it("still runs a call whose keys are all declared", async () => {
    const client = new FakeClient().on("fs/read_text_file", () => ({ content: "body" }));
    expect((await call("read_file", { path: "/work/proj/a.ts", line: 1 }, undefined, client)).output).toBe("body");
  });
});

describe("unknown keys through unions, records and loose objects", () => {
  const input = z.object({
    range: z.object({ from: z.number(), to: z.number() }).nullable().optional(),
    target: z.union([z.object({ file: z.string() }), z.object({ dir: z.string(), depth: z.number() })]).optional(),
    env: z.record(z.string(), z.object({ value: z.string() })).optional(),
    meta: z.looseObject({ id: z.string() }).optional(),
  });
  const echo: Tool<z.infer<typeof input>> = {
    name: "echo",
    description: "Echoes its input.",
    kind: "other",
    inputSchema: input,
    title: () => "echo",
    run: async (args) => ({ output: JSON.stringify(args) }),
  };
  const run = async (args: unknown) => (await call("echo", args, [echo])).output;

  it("names the unknown key of a nullable object, and accepts null", async () => {
    expect(await run({ range: { from: 1, to: 2, step: 1 } })).toBe('Error: Invalid arguments for echo: unknown key "step" in range (accepted keys: from, to)');
    expect(await run({ range: null })).toBe('{"range":null}');
  });

  it("accepts a value one branch of a union takes, and otherwise answers with the closest branch", async () => {
    expect(await run({ target: { dir: "src", depth: 2 } })).toBe('{"target":{"dir":"src","depth":2}}');
    expect(await run({ target: { file: "a.ts", line: 3 } })).toBe('Error: Invalid arguments for echo: unknown key "line" in target (accepted keys: file)');
  });

  it("takes any key of a record and checks its values, and takes any key of a loose object", async () => {
    expect(await run({ env: { A: { value: "1" } }, meta: { id: "x", note: "kept" } })).toBe('{"env":{"A":{"value":"1"}},"meta":{"id":"x","note":"kept"}}');
    expect(await run({ env: { A: { value: "1", secret: true } } })).toBe('Error: Invalid arguments for echo: unknown key "secret" in env.A (accepted keys: value)');
  });
});

describe("the schema the model is shown", () => {
  /** Every JSON Schema object node in `schema`, with where it is. */
  function objects(schema: unknown, at = "#"): Array<[string, Record<string, unknown>]> {
    if (typeof schema !== "object" || schema === null) return [];
    const node = schema as Record<string, unknown>;
    const own: Array<[string, Record<string, unknown>]> = node.type === "object" ? [[at, node]] : [];
    return [...own, ...Object.entries(node).flatMap(([k, v]) => objects(v, `${at}/${k}`))];
  }

  it("closes every object of every built-in tool (additionalProperties: false) and has no $schema URI", () => {
    const specs = toolSpecs([...ALL_TOOLS, delegateTaskTool]);
    for (const spec of specs) {
      if (spec.type !== "function") throw new Error("a built-in tool is a function tool");
      const parameters = spec.function.parameters as Record<string, unknown>;
      expect(parameters).not.toHaveProperty("$schema");
      const nodes = objects(parameters);
      expect(nodes.length).toBeGreaterThan(0);
      for (const [at, node] of nodes) expect([spec.function.name, at, node.additionalProperties]).toEqual([spec.function.name, at, false]);
    }
    const todo = specs.find((s) => s.type === "function" && s.function.name === "todo");
    expect(todo).toMatchObject({ function: { parameters: { additionalProperties: false, properties: { todos: { items: { additionalProperties: false } } } } } });
  });
});

describe("an MCP tool's arguments", () => {
  const info = (inputSchema: Record<string, unknown>) => ({ name: "search", inputSchema }) as McpToolInfo;
  function recordingServer() {
    const received: Array<Record<string, unknown>> = [];
    const server = {
      name: "docs",
      call: async (_tool: string, args: Record<string, unknown>): Promise<CallToolResult> => {
        received.push(args);
        return { content: [{ type: "text", text: "found" }] };
      },
    };
    return { server, received };
  }

  it("pass through unchanged, keys its schema does not list included, and its schema is offered as the server gave it", async () => {
    const { server, received } = recordingServer();
    const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const tool = mcpTool(server, { ...info(schema), annotations: { readOnlyHint: true } }, "mcp__docs__search");
    const args = { q: "zod", filters: { lang: "ts", nested: { deep: [1, { x: true }] } }, extra: null };
    const { output } = await call("mcp__docs__search", args, [tool]);
    expect(output).toBe("found");
    expect(received).toEqual([args]);
    expect(toolSpecs([tool])[0]).toMatchObject({ function: { parameters: schema } });
    expect(toolSpecs([tool])[0]).not.toHaveProperty("function.parameters.additionalProperties");
  });

  it("are refused by the server's own closed schema, through its validator", async () => {
    const { server, received } = recordingServer();
    const schema = { type: "object", properties: { q: { type: "string" } }, additionalProperties: false };
    const tool = mcpTool(server, { ...info(schema), annotations: { readOnlyHint: true } }, "mcp__docs__search");
    const { output } = await call("mcp__docs__search", { q: "zod", limit: 3 }, [tool]);
    expect(output).toMatch(/^Error: Invalid arguments for mcp__docs__search: input: does not match search's input schema: .*Property "limit"/);
    expect(received).toEqual([]);
  });
});
