/** What the connection's method handlers may touch; the object provides it. */
import type { SessionIndex } from "../db/session-index.js";
import type { SessionObject } from "../durable/session-object.js";
import type { ConnectionRef } from "../session/connection-ref.js";
import type { ConnectionStateStore } from "./connection-state.js";

export interface ConnectionPorts {
  state: ConnectionStateStore;
  index: SessionIndex;
  session(sessionId: string): DurableObjectStub<SessionObject>;
  /** This connection as session objects see it. */
  ref(): ConnectionRef;
  rememberSession(sessionId: string): void;
  forgetSession(sessionId: string): void;
  send(frame: string): void;
}
