/**
 * How many frames each connection object has begun to handle, so a test
 * client can send its next frame only once the one before has reached the
 * object: the order a deployed Worker (and `wrangler dev`) hands them over in.
 *
 * @cloudflare/vitest-pool-workers 0.15 calls a Durable Object's
 * `webSocketMessage` only after resolving the object's module through its
 * runner, one asynchronous lookup per frame, and those lookups can finish out
 * of order: two frames sent back to back then reach `Connection.receive`
 * swapped (one burst of five in seven here; none in 300 under `wrangler dev`).
 * A `session/prompt` that overtakes the `session/cancel` sent before it is
 * queued behind the running turn and cancelled with it. Upstream:
 * cloudflare/workers-sdk#13433, fixed for RPC by #13961 and for WebSocket
 * handlers by #14061, both after 0.15.2, which already needs wrangler 4.87
 * (that and later refuse Node 20, see TOOLCHAIN.md).
 *
 * The count is kept by wrapping `Connection.prototype.receive`: the test and
 * the objects share one module graph inside workerd.
 * @module
 */
import { Connection } from "../../src/connection/connection.js";

const counts = new Map<string, number>();
const WRAPPED = Symbol.for("hermes-edge.test.framesTakenIn");

type Receive = Connection["receive"] & { [WRAPPED]?: true };

if (!(Connection.prototype.receive as Receive)[WRAPPED]) {
  const receive = Connection.prototype.receive;
  const counted: Receive = function (this: Connection, message) {
    counts.set(this.id, (counts.get(this.id) ?? 0) + 1);
    return receive.call(this, message);
  };
  counted[WRAPPED] = true;
  Connection.prototype.receive = counted;
}

/** Frames the connection object `connectionId` has begun to handle so far. */
export function framesTakenIn(connectionId: string): number {
  return counts.get(connectionId) ?? 0;
}

/**
 * Resolves once `connectionId` has taken in more than `before` frames, or
 * `stop` says waiting is pointless (the socket closed), or after `timeoutMs`
 * (an object reset mid-frame never takes it in). It polls on the caller's own
 * timer: a promise settled from inside the object would run the caller's next
 * step in the object's context, where the test's socket cannot be used.
 */
export async function takenInAfter(connectionId: string, before: number, stop: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (framesTakenIn(connectionId) <= before && !stop() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
