/**
 * zod schemas for every param the service reads. Written once here and checked
 * against the SDK's generated types with `conforms<T>()`, so a protocol change
 * that breaks them fails the type check instead of drifting.
 */
import * as z from "zod";
import type {
  AuthenticateRequest,
  CancelNotification,
  CancelRequestNotification,
  CloseSessionRequest,
  ContentBlock,
  DeleteSessionRequest,
  InitializeRequest,
  ListSessionsRequest,
  LogoutRequest,
  PromptRequest,
  SetSessionConfigOptionRequest,
  SetSessionModeRequest,
} from "@agentclientprotocol/sdk";
import type {
  ArchiveSessionRequest,
  ForkSessionRequest,
  LoadSessionRequest,
  NewSessionRequest,
  ResumeSessionRequest,
  ListSessionsRequest as UnstableListSessionsRequest,
  SessionStatusRequest,
  SetSessionTitleRequest,
  UnarchiveSessionRequest,
} from "@agentclientprotocol/sdk/unstable";
import { MAX_MCP_SERVERS, zMcpServerEntry } from "@hermes-edge/protocol";
import { normalizeTitle } from "../session/session-title.js";

/** Accepts a schema only if what it parses is assignable to the SDK type `T`. */
const conforms =
  <T>() =>
  <S extends z.ZodType<T>>(schema: S): S =>
    schema;

const zMeta = z.record(z.string(), z.unknown()).nullish();

/** Absolute POSIX or Windows path; ACP requires absolute `cwd`s. */
export const zAbsolutePath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\"), {
    message: "must be an absolute path",
  })
  .refine((p) => !p.includes("\0"), { message: "must not contain NUL bytes" });

/** A session id as clients send it (ours are UUIDs; the bound keeps a foreign one cheap to refuse). */
export const zSessionId = z.string().min(1).max(128);
/** `http`, `sse` and `acp` servers are connected (`src/mcp/`); a `stdio` one is reported as needing the proxy. */
const zMcpServer = zMcpServerEntry;
const zMcpServerList = z.array(zMcpServer).max(MAX_MCP_SERVERS, {
  error: (issue) => `at most ${MAX_MCP_SERVERS} MCP servers per session; this request declares ${Array.isArray(issue.input) ? issue.input.length : "more"}`,
});
const zMcpServers = zMcpServerList.default([]);

export const zInitialize = conforms<InitializeRequest>()(
  z.looseObject({
    protocolVersion: z.number().int().min(0).max(65535),
    clientCapabilities: z.looseObject({}).optional(),
    clientInfo: z.looseObject({ name: z.string(), version: z.string() }).nullish(),
    _meta: zMeta,
  }),
);

export const zAuthenticate = conforms<AuthenticateRequest>()(
  z.looseObject({ methodId: z.string().min(1), _meta: zMeta }),
);

export const zLogout = conforms<LogoutRequest>()(z.looseObject({ _meta: zMeta }));

export const zNewSession = conforms<NewSessionRequest>()(
  z.looseObject({
    cwd: zAbsolutePath,
    additionalDirectories: z.array(zAbsolutePath).optional(),
    mcpServers: zMcpServers,
    _meta: zMeta,
  }),
);

export const zLoadSession = conforms<LoadSessionRequest>()(
  z.looseObject({
    sessionId: zSessionId,
    cwd: zAbsolutePath,
    additionalDirectories: z.array(zAbsolutePath).optional(),
    mcpServers: zMcpServers,
    _meta: zMeta,
  }),
);

export const zResumeSession = conforms<ResumeSessionRequest>()(
  z.looseObject({
    sessionId: zSessionId,
    cwd: zAbsolutePath,
    additionalDirectories: z.array(zAbsolutePath).optional(),
    mcpServers: zMcpServerList.optional(),
    _meta: zMeta,
  }),
);

/** Unstable `archived` filter: a value the agent does not support is -32602, never read as `exclude`. */
export const zArchiveFilter = z.enum(["exclude", "include", "only"]);

export const zListSessions = conforms<ListSessionsRequest & UnstableListSessionsRequest>()(
  z.looseObject({
    cwd: zAbsolutePath.nullish(),
    cursor: z.string().max(512).nullish(),
    archived: zArchiveFilter.nullish(),
    _meta: zMeta,
  }),
);

export const zSessionRef = conforms<CloseSessionRequest & DeleteSessionRequest & CancelNotification>()(
  z.looseObject({ sessionId: zSessionId, _meta: zMeta }),
);

/** `session/status`, `session/archive`, `session/unarchive` (unstable): a session id and nothing else. */
export const zUnstableSessionRef = conforms<SessionStatusRequest & ArchiveSessionRequest & UnarchiveSessionRequest>()(zSessionRef);

/** `session/set_title` (unstable): required, non-null, not empty once normalized. */
export const zSetTitle = conforms<SetSessionTitleRequest>()(
  z.looseObject({
    sessionId: zSessionId,
    title: z
      .string()
      .max(10_000)
      .refine((t) => normalizeTitle(t) !== "", { message: "title must not be empty" }),
    _meta: zMeta,
  }),
);

export const zCancelRequest = conforms<CancelRequestNotification>()(
  z.looseObject({ requestId: z.union([z.string(), z.number().int(), z.null()]), _meta: zMeta }),
);

const zAnnotations = z.looseObject({}).nullish();
const zTextResource = z.looseObject({ uri: z.string(), text: z.string(), mimeType: z.string().nullish() });
const zBlobResource = z.looseObject({ uri: z.string(), blob: z.string(), mimeType: z.string().nullish() });

export const zContentBlock = conforms<ContentBlock>()(
  z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text"), text: z.string(), annotations: zAnnotations }),
    z.looseObject({
      type: z.literal("image"),
      data: z.string(),
      mimeType: z.string().min(1),
      uri: z.string().nullish(),
      annotations: zAnnotations,
    }),
    z.looseObject({ type: z.literal("audio"), data: z.string(), mimeType: z.string().min(1), annotations: zAnnotations }),
    z.looseObject({
      type: z.literal("resource_link"),
      uri: z.string().min(1),
      name: z.string(),
      title: z.string().nullish(),
      description: z.string().nullish(),
      mimeType: z.string().nullish(),
      size: z.number().nullish(),
      annotations: zAnnotations,
    }),
    z.looseObject({
      type: z.literal("resource"),
      resource: z.union([zTextResource, zBlobResource]),
      annotations: zAnnotations,
    }),
  ]),
);

export const zPrompt = conforms<PromptRequest>()(
  z.looseObject({ sessionId: zSessionId, prompt: z.array(zContentBlock).min(1), _meta: zMeta }),
);

export const zSetMode = conforms<SetSessionModeRequest>()(
  z.looseObject({ sessionId: zSessionId, modeId: z.string().min(1), _meta: zMeta }),
);

export const zSetConfigOption = conforms<SetSessionConfigOptionRequest>()(
  z.looseObject({
    sessionId: zSessionId,
    configId: z.string().min(1),
    value: z.string(),
    type: z.literal("select").optional(),
    _meta: zMeta,
  }),
);

/** Same fields as `session/resume`: the source session and the fork's roots. */
export const zForkSession = conforms<ForkSessionRequest>()(zResumeSession);

/** The pre-config-option way to pick a model, still sent by some clients. */
export const zSetModel = z.looseObject({ sessionId: zSessionId, modelId: z.string().min(1), _meta: zMeta });

/** `_hermes/subagents/interrupt`: one running sub-agent of a session. */
export const zSubagentRef = z.looseObject({ sessionId: zSessionId, subagentId: zSessionId, _meta: zMeta });
