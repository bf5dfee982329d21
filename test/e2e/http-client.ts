/**
 * The official ACP SDK client over its Streamable HTTP stream
 * (`createHttpStream`), shaped like `connectSdk` so suites can mix transports.
 */
import { client, type SessionNotification } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";

export interface HttpSdkClient {
  agent: ReturnType<ReturnType<typeof client>["connect"]>["agent"];
  updates: SessionNotification[];
  /** Every fetch the stream made: method, status and the Acp-* headers it sent. */
  requests: { method: string; status: number; connectionId: string | null; sessionId: string | null }[];
  close(): Promise<void>;
}

export function connectHttpSdk(
  url: string,
  token: string,
  handlers: { permission?: (params: any) => unknown; writeTextFile?: (params: any) => unknown } = {},
): HttpSdkClient {
  const updates: SessionNotification[] = [];
  const requests: HttpSdkClient["requests"] = [];
  const app = client({ name: "hermes-edge-e2e-http" }).onNotification("session/update", (ctx) => {
    updates.push(ctx.params);
  });
  if (handlers.permission) app.onRequest("session/request_permission", (ctx) => handlers.permission!(ctx.params) as any);
  if (handlers.writeTextFile) app.onRequest("fs/write_text_file", (ctx) => handlers.writeTextFile!(ctx.params) as any);
  const tapped: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const h = new Headers(init?.headers);
    requests.push({ method: init?.method ?? "GET", status: res.status, connectionId: h.get("Acp-Connection-Id"), sessionId: h.get("Acp-Session-Id") });
    return res;
  };
  const stream = createHttpStream(`${url}/acp`, { headers: { Authorization: `Bearer ${token}` }, fetch: tapped });
  const conn = app.connect(stream);
  return {
    agent: conn.agent,
    updates,
    requests,
    close: async () => {
      conn.close();
      await conn.closed.catch(() => undefined);
    },
  };
}
