/**
 * What hermes-edge answers when an upstream ACP agent asks its client (us) for
 * something, under the seed's safety rules: permission requests are rejected,
 * file reads and writes are confined to the session's workspace and served by
 * the editor (writes through the permission gate), terminals do not exist.
 */
import { RequestError, type ClientApp, type RequestPermissionRequest, type RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { canReadFiles, canWriteFiles, describeClientError, readTextFile } from "../../tools/client-calls.js";
import { resolveToolPath } from "../../tools/path-policy.js";
import { ToolError, type ToolContext } from "../../tools/tool.js";
import { writeFileTool } from "../../tools/write-file.js";

/** A tool context for one upstream request (its own id, for the permission prompt). */
export type UpstreamToolContext = (signal: AbortSignal) => ToolContext;

const TERMINAL_METHODS = ["terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release"] as const;

export function rejectPermission(params: RequestPermissionRequest): RequestPermissionResponse {
  const reject = params.options.find((o) => o.kind === "reject_once") ?? params.options.find((o) => o.kind === "reject_always");
  return { outcome: reject ? { outcome: "selected", optionId: reject.optionId } : { outcome: "cancelled" } };
}

/** Registers the handlers on the upstream's client app; `label` names the upstream in messages. */
export function serveUpstreamRequests(app: ClientApp, label: string, context: UpstreamToolContext): ClientApp {
  app.onRequest("session/request_permission", (ctx) => rejectPermission(ctx.params));
  app.onRequest("fs/read_text_file", async (ctx) => {
    const tool = context(ctx.signal);
    if (!canReadFiles(tool.client.capabilities)) throw RequestError.methodNotFound("fs/read_text_file");
    const path = confined(ctx.params.path, tool, label);
    try {
      const range = { ...(ctx.params.line != null ? { line: ctx.params.line } : {}), ...(ctx.params.limit != null ? { limit: ctx.params.limit } : {}) };
      return { content: await readTextFile(tool, path, range) };
    } catch (err) {
      throw new RequestError(-32603, `The editor could not read ${path}: ${describeClientError(err)}`);
    }
  });
  app.onRequest("fs/write_text_file", async (ctx) => {
    const tool = context(ctx.signal);
    if (!canWriteFiles(tool.client.capabilities)) throw RequestError.methodNotFound("fs/write_text_file");
    const path = confined(ctx.params.path, tool, label);
    if (!tool.gate) throw new RequestError(-32603, `Writing ${path} was refused: there is no permission gate to ask.`);
    try {
      // The same path as the write_file tool: old content for the diff, the gate, then the editor.
      await writeFileTool.run({ path, content: ctx.params.content }, tool);
      return {};
    } catch (err) {
      const message = err instanceof ToolError ? err.message : describeClientError(err);
      throw new RequestError(-32603, `Writing ${path} was refused: ${message}`);
    }
  });
  for (const method of TERMINAL_METHODS) {
    app.onRequest(method, () => {
      throw RequestError.methodNotFound(method);
    });
  }
  return app;
}

function confined(path: string, tool: ToolContext, label: string): string {
  try {
    return resolveToolPath(path, tool);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw RequestError.invalidParams({ path }, `${label} may only use files inside the session's workspace. ${why}`);
  }
}
