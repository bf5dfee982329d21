/**
 * Checks frames against the official ACP v1 JSON schema shipped in the SDK, as
 * an independent client would. The schema's top-level message union accepts
 * any params through its extension branch, so each frame is also checked
 * against the type its method (or, for a response, its request's method)
 * names. Node only: ajv compiles code, which workerd forbids.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
type Schema = { anyOf: { title: string }[]; $defs: Record<string, unknown> };
const stable = require("@agentclientprotocol/sdk/schema/v1/schema.json") as Schema;
const unstable = require("@agentclientprotocol/sdk/schema/v1/schema.unstable.json") as Schema;

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
ajv.addSchema({ $id: "acp", $defs: stable.$defs });
// Unstable methods (`session/fork`, title, status, archive) are checked against the unstable schema.
ajv.addSchema({ $id: "acp-unstable", $defs: unstable.$defs });
const UNSTABLE_TYPES = new Set([
  "ForkSessionResponse",
  "SetSessionTitleResponse",
  "SessionStatusResponse",
  "ArchiveSessionResponse",
  "UnarchiveSessionResponse",
]);
const compiled = new Map<string, ValidateFunction>();

function validator(name: string): ValidateFunction {
  const cached = compiled.get(name);
  if (cached) return cached;
  const fn = ajv.compile(
    name === "$agent"
      ? rewrite(stable.anyOf.find((s) => s.title === "Agent")!)
      : { $ref: `${UNSTABLE_TYPES.has(name) ? "acp-unstable" : "acp"}#/$defs/${name}` },
  );
  compiled.set(name, fn);
  return fn;
}

function rewrite<T>(node: T): T {
  return JSON.parse(JSON.stringify(node).replaceAll('"#/$defs/', '"acp#/$defs/')) as T;
}

const RESPONSE_TYPES: Record<string, string> = {
  initialize: "InitializeResponse",
  authenticate: "AuthenticateResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/resume": "ResumeSessionResponse",
  "session/list": "ListSessionsResponse",
  "session/close": "CloseSessionResponse",
  "session/delete": "DeleteSessionResponse",
  "session/prompt": "PromptResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse",
  "session/fork": "ForkSessionResponse",
  "session/set_title": "SetSessionTitleResponse",
  "session/status": "SessionStatusResponse",
  "session/archive": "ArchiveSessionResponse",
  "session/unarchive": "UnarchiveSessionResponse",
};

const AGENT_REQUEST_TYPES: Record<string, string> = {
  "session/request_permission": "RequestPermissionRequest",
  "fs/read_text_file": "ReadTextFileRequest",
  "fs/write_text_file": "WriteTextFileRequest",
  "terminal/create": "CreateTerminalRequest",
  "terminal/output": "TerminalOutputRequest",
  "terminal/release": "ReleaseTerminalRequest",
  "terminal/wait_for_exit": "WaitForTerminalExitRequest",
  "terminal/kill": "KillTerminalRequest",
  "elicitation/create": "CreateElicitationRequest",
};

const AGENT_NOTIFICATION_TYPES: Record<string, string> = {
  "session/update": "SessionNotification",
  // Protocol-level: the agent withdraws a request it no longer waits for.
  "$/cancel_request": "CancelRequestNotification",
};

type Frame = { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };

/** Follows one connection: remembers the client's request methods to check the answers. */
export class AgentFrameValidator {
  readonly #requests = new Map<string, string>();
  readonly errors: string[] = [];

  /** Call for every frame the client sends. */
  sent(frame: Frame): void {
    if (frame.method && frame.id !== undefined) this.#requests.set(JSON.stringify(frame.id), frame.method);
  }

  /** Call for every frame the agent sends; returns and records the problem, if any. */
  received(frame: Frame): string | null {
    const problem = this.#check(frame);
    if (problem) this.errors.push(`${problem} in ${JSON.stringify(frame).slice(0, 400)}`);
    return problem;
  }

  #check(frame: Frame): string | null {
    const base = validator("$agent");
    if (!base(frame)) return ajv.errorsText(base.errors, { dataVar: "frame" });
    if (frame.method !== undefined) {
      const type =
        frame.id === undefined ? AGENT_NOTIFICATION_TYPES[frame.method] : AGENT_REQUEST_TYPES[frame.method];
      if (type) return check(type, frame.params, "params");
      return frame.method.startsWith("_") ? null : `agent sent unknown method ${frame.method}`;
    }
    if (frame.error !== undefined) return check("Error", frame.error, "error");
    const method = this.#requests.get(JSON.stringify(frame.id));
    if (!method) return `response to an id the client never used: ${JSON.stringify(frame.id)}`;
    const type = RESPONSE_TYPES[method];
    return type ? check(type, frame.result, "result") : null;
  }
}

function check(type: string, value: unknown, where: string): string | null {
  const fn = validator(type);
  return fn(value) ? null : `${type}: ${ajv.errorsText(fn.errors, { dataVar: where })}`;
}
