/**
 * Runs one model tool call: parse and validate the arguments, announce the call
 * to the editor, run the tool, report the outcome. Returns what the model reads.
 */
import { z } from "zod";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ModelToolCall, ToolSpec } from "./model-provider.js";
import type { TurnDeps } from "./turn-loop.js";
import { ToolError, type AnyTool } from "../tools/tool.js";

/** Tool specs are the same for every turn; converting zod to JSON Schema each time costs ~1 ms. */
const specCache = new WeakMap<AnyTool, ToolSpec>();

export function toolSpecs(tools: AnyTool[]): ToolSpec[] {
  return tools.map((tool) => {
    let spec = specCache.get(tool);
    if (!spec) {
      spec = {
        type: "function",
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters ?? (z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>),
        },
      };
      specCache.set(tool, spec);
    }
    return spec;
  });
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
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    return fail(deps, toolCallId, tool.name, rawInput, `Invalid arguments for ${tool.name}: ${issues}`);
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
