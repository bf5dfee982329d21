/**
 * Keep-alive and orderly close for the service WebSocket.
 * @module
 */
import type WebSocket from "ws";

/**
 * Pings every `intervalMs`; terminates the socket when the previous ping got
 * no pong. A half-open TCP connection (laptop sleep, NAT timeout) shows no
 * error, so an unanswered ping is the only way to notice it and reconnect.
 * @returns a function that stops the heartbeat.
 */
export function startHeartbeat(socket: WebSocket, intervalMs: number, onDead: () => void): () => void {
  let alive = true;
  socket.on("pong", () => (alive = true));
  const timer = setInterval(() => {
    if (!alive) {
      onDead();
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Closes with 1000 (normal closure) and waits up to `timeoutMs` for the peer's close frame. */
export function closeGracefully(socket: WebSocket, reason: string, timeoutMs = 1000): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === socket.CLOSED) return resolve();
    const timer = setTimeout(() => {
      socket.terminate();
      resolve();
    }, timeoutMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
    socket.close(1000, reason);
  });
}

/** The text of a message event, whatever shape `ws` delivered it in. */
export function frameText(data: WebSocket.RawData): string {
  const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  return bytes.toString("utf8");
}
