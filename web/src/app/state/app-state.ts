/**
 * The web client's state as components read it: one immutable snapshot that
 * `AppController` replaces on every change.
 * @module
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationFormMode,
  RequestPermissionRequest,
  SessionInfo,
} from "@agentclientprotocol/sdk";
import type { ConnectionStatus } from "../../client/index.js";
import type { Transcript } from "./transcript.js";

export interface PermissionAsk {
  readonly id: number;
  readonly params: RequestPermissionRequest;
  readonly answer: (optionId: string | null) => void;
}

/** A form-mode question; the dialog answers it once (accept, decline or cancel). */
export interface ElicitationAsk {
  readonly id: number;
  readonly params: CreateElicitationRequest & ElicitationFormMode & { mode: "form" };
  readonly answer: (response: CreateElicitationResponse) => void;
}

export interface SessionsState {
  readonly items: readonly SessionInfo[];
  readonly nextCursor: string | null;
  readonly filter: string;
  readonly loading: boolean;
  readonly error: string | null;
}

export interface AppState {
  readonly phase: "signed-out" | "signing-in" | "ready";
  readonly signInError: string | null;
  readonly status: ConnectionStatus | null;
  readonly sessions: SessionsState;
  readonly activeSessionId: string | null;
  /**
   * The working directory of a `session/new` on its way. The page shows that instead of the session
   * open before, so nothing typed or sent meanwhile goes to that one.
   */
  readonly startingIn: string | null;
  readonly transcripts: Readonly<Record<string, Transcript>>;
  /** Sessions with a turn running, started here or by another client. */
  readonly running: Readonly<Record<string, boolean>>;
  readonly permissions: readonly PermissionAsk[];
  readonly elicitations: readonly ElicitationAsk[];
  readonly error: string | null;
}

const NO_SESSIONS: SessionsState = { items: [], nextCursor: null, filter: "", loading: false, error: null };

export const INITIAL: AppState = {
  phase: "signed-out",
  signInError: null,
  status: null,
  sessions: NO_SESSIONS,
  activeSessionId: null,
  startingIn: null,
  transcripts: {},
  running: {},
  permissions: [],
  elicitations: [],
  error: null,
};
