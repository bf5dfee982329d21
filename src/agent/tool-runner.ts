/**
 * Runs one model tool call: parse and validate the arguments, announce the call
 * to the editor, run the tool, report the outcome. Returns what the model reads.
 */
import * as z from "zod";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { ModelToolCall, ToolSpec } from "./model-provider.js";
import type { TurnDeps } from "./turn-loop.js";
import { ToolError, type AnyTool } from "../tools/tool.js";
import { describeUnknownKeys, unknownArguments } from "./unknown-arguments.js";

/** Tool specs are the same for every turn; converting zod to JSON Schema each time costs ~1 ms. */
const specCache = new WeakMap<AnyTool, ChatCompletionFunctionTool>();

/**
 * The last list given out: a turn offered the same tools as the one before it
 * (the usual case) gets the same array, so the request body reuses its JSON
 * (`chatRequestBody` keeps it per array) instead of serializing every tool's
 * schema again on every prompt.
 */
let lastSpecs: { tools: readonly AnyTool[]; specs: readonly ToolSpec[] } | null = null;

export function toolSpecs(tools: readonly AnyTool[]): readonly ToolSpec[] {
  if (lastSpecs && sameTools(lastSpecs.tools, tools)) return lastSpecs.specs;
  const specs = tools.map(toolSpec);
  lastSpecs = { tools: [...tools], specs };
  return specs;
}

function sameTools(a: readonly AnyTool[], b: readonly AnyTool[]): boolean {
  return a.length === b.length && a.every((tool, i) => tool === b[i]);
}

function toolSpec(tool: AnyTool): ChatCompletionFunctionTool {
  let spec = specCache.get(tool);
  if (!spec) {
    spec = {
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters ?? strictParameters(tool.inputSchema) },
    };
    specCache.set(tool, spec);
  }
  return spec;
}

/**
 * A zod tool's arguments as JSON Schema, every object closed
 * (`additionalProperties: false`): the model is told what `runToolCall`
 * enforces. OpenAI accepts it (its strict tools require it), as do the usual
 * OpenAI-compatible servers, and MCP servers' schemas already carry it to the
 * model; Gemini-style schema subsets that reject it would reject those too.
 * Enforcement does not depend on it. The `$schema` dialect URI is left out, as
 * for MCP tools (some model APIs reject it).
 */
function strictParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: "input",
    override: ({ zodSchema, jsonSchema }) => {
      // A loose object's catchall or a strict object's `false` is already said; a plain (stripping) object gets `false`.
      if (zodSchema._zod.def.type === "object" && jsonSchema.additionalProperties === undefined) jsonSchema.additionalProperties = false;
    },
  }) as Record<string, unknown>;
  const { $schema: _dialect, ...parameters } = json;
  return parameters;
}

export async function runToolCall(
  call: ModelToolCall,
  tools: AnyTool[],
  deps: Pick<TurnDeps, "emit" | "toolContext">,
  signal: AbortSignal,
): Promise<string> {
  const toolCallId = call.id;
  const tool = tools.find((t) => t.name === call.name);
  const { value: rawInput, error: jsonError } = parseArguments(call.arguments);
  if (!tool) {
    return fail(deps, toolCallId, call.name, rawInput, `Unknown tool "${call.name}". Available: ${tools.map((t) => t.name).join(", ") || "none"}.`);
  }
  if (jsonError !== undefined) {
    // The parser's reason says where: arguments cut off at the model's output limit end early.
    return fail(deps, toolCallId, tool.name, call.arguments, `The arguments for ${tool.name} are not valid JSON (${jsonError}).`);
  }
  // zod objects drop unknown keys; the closed schema the model was shown names them. A tool with its own
  // schema (MCP) is checked by that schema's validator, which passes through what the schema allows.
  const unknownKeys = tool.parameters ? [] : describeUnknownKeys(unknownArguments(toolSpec(tool).function.parameters, rawInput));
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success || unknownKeys.length > 0) {
    const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`);
    return fail(deps, toolCallId, tool.name, rawInput, `Invalid arguments for ${tool.name}: ${[...unknownKeys, ...issues].join("; ")}`);
  }
  const ctx = deps.toolContext(toolCallId, signal);
  deps.emit({
    sessionUpdate: "tool_call",
    toolCallId,
    title: tool.title(parsed.data),
    kind: tool.kind,
    status: "pending",
    rawInput,
    locations: tool.locations?.(parsed.data, ctx) ?? [],
  });
  deps.emit({ sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
  try {
    const result = await tool.run(parsed.data, ctx);
    deps.emit({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "completed",
      content: result.content ?? [textContent(result.output)],
      ...(result.rawOutput !== undefined ? { rawOutput: result.rawOutput } : {}),
      ...(result.locations ? { locations: result.locations } : {}),
    });
    return result.output;
  } catch (err) {
    const reason = signal.aborted
      ? "Cancelled by the user."
      : err instanceof ToolError
        ? err.message
        : `${tool.name} failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`;
    deps.emit({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [textContent(reason)] });
    return `Error: ${reason}`;
  }
}

function fail(deps: Pick<TurnDeps, "emit">, toolCallId: string, name: string, rawInput: unknown, reason: string): string {
  deps.emit({
    sessionUpdate: "tool_call",
    toolCallId,
    title: name,
    kind: "other",
    status: "failed",
    rawInput,
    content: [textContent(reason)],
  });
  return `Error: ${reason}`;
}

function parseArguments(text: string): { value: unknown; error?: string } {
  if (text.trim() === "") return { value: {} };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { value: undefined, error: err instanceof Error ? err.message : String(err) };
  }
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}
