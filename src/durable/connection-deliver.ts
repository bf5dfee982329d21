/**
 * How a session object delivers frames to one connection object: through one
 * stub, made on the first batch and kept for the next ones (each new stub is
 * an `idFromString` and a `get`, and a busy turn sends a batch every few
 * milliseconds). A call that throws drops the stub: Cloudflare says a stub may
 * stay broken after an exception, so the outbox's retry gets a new one.
 */
import type { ConnectionRpc } from "../connection/connection-rpc.js";
import type { Deliver } from "../session/update-log.js";

export function connectionDeliver(connections: DurableObjectNamespace<ConnectionRpc>, connectionId: string): Deliver {
  let stub: DurableObjectStub<ConnectionRpc> | undefined;
  return async (frames) => {
    stub ??= connections.get(connections.idFromString(connectionId));
    try {
      return await stub.deliver(frames);
    } catch (err) {
      stub = undefined;
      throw err;
    }
  };
}
