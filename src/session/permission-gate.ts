/**
 * The one gate every edit and command passes. It decides from the mode, the
 * sensitive-path rule and remembered answers whether to ask the editor with
 * `session/request_permission`, and remembers what the user chose. A denial
 * holds for the rest of the turn, whatever tool tries the same path again.
 */
import type { PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { isSensitivePath } from "../tools/path-policy.js";
import { ToolError, type GateRequest } from "../tools/tool.js";
import { modeDecision } from "./modes.js";

export const PERMISSION_OPTIONS = {
  allowOnce: { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  allowSession: { optionId: "allow_session", name: "Allow for this session", kind: "allow_always" },
  allowAlways: { optionId: "allow_always", name: "Always allow in this project", kind: "allow_always" },
  reject: { optionId: "reject", name: "Deny", kind: "reject_once" },
} as const satisfies Record<string, PermissionOption>;

export interface GatePorts {
  sessionId: string;
  mode(): string;
  /** Rules allowed for this session (persisted with it). */
  sessionRules(): string[];
  addSessionRule(rule: string): void;
  /** Rules remembered for this tenant and cwd (D1). */
  hasTenantRule(rule: string): Promise<boolean>;
  addTenantRule(rule: string): Promise<void>;
  askClient(params: RequestPermissionRequest, options: { signal: AbortSignal; timeoutMs: number }): Promise<unknown>;
  timeoutMs: number;
  /** Optional label for who asks (a sub-agent), shown in the editor. */
  label?: string;
  /** When set, what would be asked is denied instead, for this reason (`HERMES_SUBAGENT_APPROVAL=deny`). */
  autoDeny?: string;
}

const zAnswer = z.object({
  outcome: z.union([z.object({ outcome: z.literal("cancelled") }), z.object({ outcome: z.literal("selected"), optionId: z.string() })]),
});

/** Lives for one turn: its `denied` set is what stops a denied edit being retried by another tool. */
export class PermissionGate {
  readonly #denied = new Set<string>();

  constructor(private readonly ports: GatePorts) {}

  async check(request: GateRequest, call: { toolCallId: string; signal: AbortSignal }): Promise<void> {
    const rule = ruleFor(request);
    const deniedKeys = request.kind === "edit" ? request.paths.map((p) => `edit:${p}`) : [rule];
    const alreadyDenied = deniedKeys.find((k) => this.#denied.has(k));
    if (alreadyDenied) {
      throw new ToolError(`The user already denied ${describe(request)} in this turn; do not try it again another way.`);
    }
    const sensitive = request.kind === "edit" && request.paths.some(isSensitivePath);
    const decision = modeDecision(this.ports.mode(), request.kind, sensitive);
    if (decision === "deny") throw new ToolError(`The session is in read-only mode, so ${describe(request)} is not allowed.`);
    if (decision === "allow") return;
    if (!sensitive && (this.ports.sessionRules().includes(rule) || (await this.ports.hasTenantRule(rule)))) return;
    if (this.ports.autoDeny) {
      this.#deny(deniedKeys);
      throw new ToolError(`Permission for ${describe(request)} was denied: ${this.ports.autoDeny}.`);
    }

    const options: PermissionOption[] = sensitive
      ? [PERMISSION_OPTIONS.allowOnce, PERMISSION_OPTIONS.reject]
      : [PERMISSION_OPTIONS.allowOnce, PERMISSION_OPTIONS.allowSession, PERMISSION_OPTIONS.allowAlways, PERMISSION_OPTIONS.reject];
    const title = this.ports.label ? `[${this.ports.label}] ${request.title}` : request.title;
    let optionId: string;
    try {
      const answer = await this.ports.askClient(
        {
          sessionId: this.ports.sessionId,
          toolCall: {
            toolCallId: call.toolCallId,
            title,
            kind: request.kind === "mcp" ? (request.toolKind ?? "other") : request.kind,
            status: "pending",
            content: request.content,
            locations: request.paths.map((path) => ({ path })),
          },
          options,
          ...(sensitive ? { _meta: { hermes: { sensitive: true } } } : {}),
        },
        { signal: call.signal, timeoutMs: this.ports.timeoutMs },
      );
      const parsed = zAnswer.parse(answer).outcome;
      optionId = parsed.outcome === "selected" ? parsed.optionId : "cancelled";
    } catch (err) {
      if (call.signal.aborted) throw err;
      this.#deny(deniedKeys);
      const why = err instanceof Error && /within/.test(err.message) ? `no answer within ${Math.round(this.ports.timeoutMs / 1000)} s` : "the editor could not be asked";
      throw new ToolError(`Permission for ${describe(request)} was denied (${why}).`);
    }
    switch (optionId) {
      case PERMISSION_OPTIONS.allowOnce.optionId:
        return;
      case PERMISSION_OPTIONS.allowSession.optionId:
        if (!sensitive) this.ports.addSessionRule(rule);
        return;
      case PERMISSION_OPTIONS.allowAlways.optionId:
        if (!sensitive) {
          this.ports.addSessionRule(rule);
          await this.ports.addTenantRule(rule);
        }
        return;
      default:
        if (call.signal.aborted) throw new ToolError("Cancelled by the user.");
        this.#deny(deniedKeys);
        throw new ToolError(`The user denied ${describe(request)}.`);
    }
  }

  #deny(keys: string[]): void {
    for (const key of keys) this.#denied.add(key);
  }
}

/**
 * `edit` covers all non-sensitive edits; simple commands are remembered per
 * program. A command line with shell operators could chain anything after an
 * allowed program, so it is remembered only as that exact line.
 */
export function ruleFor(request: GateRequest): string {
  if (request.kind === "edit") return "edit";
  if (request.kind === "mcp") return request.rule ?? request.title;
  const command = (request.command ?? request.title.replace(/^\$\s*/, "")).trim();
  if (/[;&|$`<>\n(){}]/.test(command)) return `execute=${command}`;
  const program = command.split(/\s+/)[0] ?? "";
  return `execute:${program.split("/").pop() ?? program}`;
}

function describe(request: GateRequest): string {
  if (request.kind === "mcp") return `calling ${request.title}`;
  return request.kind === "edit" ? `editing ${request.paths.join(", ")}` : `running \`${request.command ?? request.title.replace(/^\$\s*/, "")}\``;
}
