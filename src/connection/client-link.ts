/**
 * Where a connection's frames go: a WebSocket, or (Streamable HTTP) the
 * connection's SSE streams. The seam that keeps one method table for both.
 */
export interface ClientLink {
  send(frame: string): void;
}
