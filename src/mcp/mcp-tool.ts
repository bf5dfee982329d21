/**
 * One MCP server tool as a hermes-edge `Tool`: named `mcp__<server>__<tool>`,
 * its arguments checked against the tool's own JSON Schema before the call,
 * shown as `<server>: <title>`, gated unless read-only, and its result
 * converted for the model and the editor.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import * as z from "zod";
import { previewBlock } from "../tools/render.js";
import type { AnyTool } from "../tools/tool.js";
import type { McpToolInfo } from "./mcp-link.js";
import { isReadOnlyKind, mcpToolKind } from "./tool-kind.js";
import { toolOutcome } from "./tool-result.js";

const validators = new CfWorkerJsonSchemaValidator();
/** Descriptions are the server's text in the model's context; a long one is cut. */
const MAX_DESCRIPTION = 2_000;

/** Who answers the tool's calls: its server, or for a sub-agent the parent session. */
export interface McpCaller {
  name: string;
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

type Validate = (input: unknown) => { valid: true; data: Record<string, unknown> } | { valid: false; errorMessage: string };

/**
 * The tool's argument check. A schema the validator cannot compile (a bad
 * `$id`, say), or one that throws while checking (a `pattern` that is no valid
 * Unicode regex), makes that tool's calls fail with the reason; it must not
 * break every turn that lists the server's tools.
 */
function validatorFor(toolName: string, schema: Record<string, unknown>): Validate {
  let validate: Validate;
  try {
    validate = validators.getValidator<Record<string, unknown>>(schema) as Validate;
  } catch (err) {
    const why = `the server's input schema for ${toolName} cannot be used: ${err instanceof Error ? err.message : String(err)}`;
    return () => ({ valid: false, errorMessage: why });
  }
  return (input) => {
    try {
      return validate(input);
    } catch (err) {
      return { valid: false, errorMessage: `checking against the server's input schema failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  };
}

export function mcpTool(server: McpCaller, info: McpToolInfo, name: string): AnyTool {
  const kind = mcpToolKind(info.annotations);
  const schema = { type: "object", ...info.inputSchema };
  const validate = validatorFor(info.name, schema);
  // The model gets the schema without its `$schema` dialect URI, which some model APIs reject.
  const { $schema: _dialect, ...parameters } = schema as Record<string, unknown>;
  const label = `${server.name}: ${info.title ?? info.annotations?.title ?? info.name}`;
  return {
    name,
    description: `[MCP server "${server.name}"] ${(info.description ?? info.title ?? info.name).slice(0, MAX_DESCRIPTION)}`,
    kind,
    parameters,
    inputSchema: z.unknown().transform((input, ctx) => {
      const result = validate(input ?? {});
      if (!result.valid) {
        ctx.addIssue({ code: "custom", message: `does not match ${info.name}'s input schema: ${result.errorMessage}` });
        return z.NEVER;
      }
      return result.data;
    }),
    title: () => label,
    async run(input: Record<string, unknown>, ctx) {
      if (!isReadOnlyKind(kind)) {
        await ctx.gate?.({ kind: "mcp", rule: name, toolKind: kind, paths: [], title: label, content: [previewBlock(JSON.stringify(input, null, 2))] });
      }
      return toolOutcome(label, await server.call(info.name, input, ctx.signal));
    },
  };
}
