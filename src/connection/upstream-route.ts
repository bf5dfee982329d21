/**
 * `_hermes/upstream/message` from a proxy: a message of one of the upstream
 * agents it runs (and declared at `initialize`). It goes to each session
 * attached through this connection; the session's tunnel that sent the
 * request, or opened the upstream session it is about, takes it.
 */
import { declaredUpstreams, zUpstreamMessage } from "@hermes-edge/protocol";
import type { Connection } from "./connection.js";

export async function routeUpstreamMessage(params: unknown, connection: Connection): Promise<void> {
  const parsed = zUpstreamMessage.safeParse(params ?? {});
  if (!parsed.success) {
    console.warn("ignored malformed _hermes/upstream/message", parsed.error.issues);
    return;
  }
  const state = connection.state.get()!;
  if (!declaredUpstreams(state.clientCapabilities).some((u) => u.id === parsed.data.upstreamId)) {
    console.warn(`ignored _hermes/upstream/message for undeclared upstream ${parsed.data.upstreamId}`);
    return;
  }
  const { connectionId } = connection.ref();
  await Promise.all(state.sessions.map((id) => connection.session(id).upstreamMessage(connectionId, parsed.data)));
}
