/**
 * With no model key configured, a prompt gets a clear message in the
 * conversation. The workers project binds OPENAI_API_KEY, so this test builds a
 * session object over a real object's storage with an env that lacks the key;
 * its frames still travel through a real connection object to a real socket.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SessionObject } from "../../src/durable/session-object.js";
import { mockCalls, TestClient } from "./acp-test-client.js";

describe("no model configured", () => {
  it("answers a prompt with a message saying how to configure a model, and nothing crashes", async () => {
    const client = await TestClient.ready();
    const sessionId = crypto.randomUUID();
    const stub = env.SESSION.get(env.SESSION.idFromName(sessionId));
    const conn = { connectionId: client.connectionId, tenant: "alpha", clientCapabilities: { _meta: { hermes: { turnEnded: true } } } };
    const callsBefore = (await mockCalls("")).length;

    // Frames are awaited outside the object: its context cannot touch this test's socket.
    let keyless: SessionObject | undefined;
    const inObject = <T>(fn: (obj: SessionObject) => Promise<T>) =>
      runInDurableObject(stub, async (_instance, state) => {
        if (!keyless) {
          keyless = new SessionObject(state, { ...env, OPENAI_API_KEY: undefined });
          // Its constructor readies itself inside blockConcurrencyWhile; let that run.
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
        return fn(keyless);
      });
    expect(await inObject((o) => o.create(conn, "new-1", { sessionId, cwd: "/work/nokey", additionalDirectories: [] }))).toEqual({
      ok: true,
      result: null,
    });
    expect(await inObject((o) => o.prompt(conn, "prompt-1", [{ type: "text", text: "hello?" }]))).toEqual({ ok: true, result: null });
    expect((await client.next((f) => f.id === "prompt-1" && !f.method, 10_000, 0)).result).toEqual({ stopReason: "end_turn" });
    expect(await inObject((o) => o.prompt(conn, "prompt-2", [{ type: "text", text: "still nothing?" }]))).toEqual({ ok: true, result: null });
    expect((await client.next((f) => f.id === "prompt-2" && !f.method, 10_000, 0)).result).toEqual({ stopReason: "end_turn" });

    expect(client.frames.find((f) => f.id === "new-1")!.result.sessionId).toBe(sessionId);
    const messages = client
      .updates(sessionId)
      .filter((f) => f.params.update.sessionUpdate === "agent_message_chunk")
      .map((f) => f.params.update.content.text as string);
    expect(messages).toHaveLength(2);
    for (const text of messages) {
      expect(text).toContain("No model is configured");
      expect(text).toContain("OPENAI_API_KEY");
      expect(text).toContain(".dev.vars");
      expect(text).toContain("wrangler secret put OPENAI_API_KEY");
      // `.dev.vars` is read at start only (issue 26, item 3).
      expect(text).toContain("restart `npm start`");
    }
    expect(client.turnsEnded(sessionId).map((f) => f.params.stopReason)).toEqual(["end_turn", "end_turn"]);
    // No request reached a model.
    expect((await mockCalls("")).length).toBe(callsBefore);
    client.close();
  });
});
