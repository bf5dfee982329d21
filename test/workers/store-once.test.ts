/**
 * A prompt's content is stored once (issue 25, target 3): in its prompts row.
 * The history's user message and the log's user_message_chunk frames refer to
 * that row, and what clients see is unchanged: replays are byte for byte the
 * frames sent live, /retry and queued prompts run the stored content,
 * compaction and forks keep it, and rows stored before keep loading.
 *
 * Prompts here are about 48 KB: the workers project refuses inbound frames
 * over 64 KB (HERMES_MAX_FRAME_BYTES); `bench/stored-bytes.ts` sends 200 KB.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { notificationFrame, updateSeqMeta } from "@hermes-edge/protocol";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { agentMessageChunk, userMessageChunk } from "../../src/acp/updates.js";
import type { SessionRecord } from "../../src/session/session-record.js";
import { SessionStore } from "../../src/session/session-store.js";
import { UpdateLog } from "../../src/session/update-log.js";
import { mockCalls, mockScript, seqOf, TestClient, uniqueKey, type Frame } from "./acp-test-client.js";

const CWD = "/work/store-once";
const CONTENT_CHARS = 48 * 1024;
const BIG_USAGE = { prompt_tokens: 120_000, completion_tokens: 10 };

/** About CONTENT_CHARS of text that ends with a marker found nowhere else (the title, made of its start, has none). */
function bigText(label: string): { marker: string; text: string } {
  const marker = `MARK-${label}-${crypto.randomUUID()}`;
  return { marker, text: `${"lorem ipsum dolor sit amet ".repeat(Math.ceil(CONTENT_CHARS / 27)).slice(0, CONTENT_CHARS - marker.length - 1)} ${marker}` };
}

function inSession<T>(sessionId: string, run: (sql: SqlStorage) => T): Promise<T> {
  const stub = env.SESSION.get(env.SESSION.idFromName(sessionId));
  return runInDurableObject(stub, (_instance, ctx) => run(ctx.storage.sql));
}

/** Whether the store has the table (prompt_content is new with the change). */
const hasTable = (sql: SqlStorage, name: string) => sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, name).toArray().length > 0;

/** Rows that hold `marker`, in each place a prompt was ever stored (prompts: the prompts row or its content row). */
function copies(sql: SqlStorage, marker: string): { history: number; log: number; prompts: number } {
  const count = (query: string) => sql.exec<{ n: number }>(query, marker).one().n;
  const content = hasTable(sql, "prompt_content") ? count(`SELECT COUNT(*) AS n FROM prompt_content WHERE instr(prompt, ?) > 0`) : 0;
  return {
    history: count(`SELECT COUNT(*) AS n FROM history WHERE instr(body, ?) > 0`),
    log: count(`SELECT COUNT(*) AS n FROM log WHERE instr(frame, ?) > 0`),
    prompts: count(`SELECT COUNT(*) AS n FROM prompts WHERE instr(prompt, ?) > 0`) + content,
  };
}

/** Bytes of the content columns. */
function storedBytes(sql: SqlStorage): { history: number; log: number; prompts: number } {
  const sum = (query: string) => sql.exec<{ n: number }>(query).one().n;
  const content = hasTable(sql, "prompt_content") ? sum(`SELECT COALESCE(SUM(LENGTH(CAST(prompt AS BLOB))), 0) AS n FROM prompt_content`) : 0;
  return {
    history: sum(`SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) AS n FROM history`),
    log: sum(`SELECT COALESCE(SUM(LENGTH(CAST(frame AS BLOB))), 0) AS n FROM log`),
    prompts: sum(`SELECT COALESCE(SUM(LENGTH(CAST(prompt AS BLOB))), 0) AS n FROM prompts`) + content,
  };
}

/** Logged frames of a session received before the response to request `id`. */
function replayed(client: TestClient, id: number, sessionId: string): Frame[] {
  const end = client.frames.findIndex((f) => f.id === id && !f.method);
  if (end < 0) throw new Error(`no response to ${id}`);
  return client.logged(sessionId).filter((f) => client.frames.indexOf(f) < end);
}

const userChunks = (frames: Frame[]) => frames.filter((f) => f.params.update?.sessionUpdate === "user_message_chunk").map((f) => f.params.update.content);

describe("a prompt's content is stored once", () => {
  it("is in its prompts row only; the history and the log refer to it", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "short answer" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    const empty = await inSession(sessionId, (sql) => ({ ...storedBytes(sql), size: sql.databaseSize }));
    const { marker, text } = bigText("once");
    const res = await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `${text} [[mock:${key}]]` }] });
    expect(res).toEqual({ stopReason: "end_turn" });
    const { found, bytes, size } = await inSession(sessionId, (sql) => ({ found: copies(sql, marker), bytes: storedBytes(sql), size: sql.databaseSize }));
    expect(found).toEqual({ history: 0, log: 0, prompts: 1 });
    // What the references leave in the old columns is still JSON: code from before a rollback can read it.
    const leftBehind = await inSession(sessionId, (sql) =>
      [
        ...sql.exec<{ v: string }>(`SELECT body AS v FROM history`).toArray(),
        ...sql.exec<{ v: string }>(`SELECT frame AS v FROM log`).toArray(),
        ...sql.exec<{ v: string }>(`SELECT prompt AS v FROM prompts`).toArray(),
      ].map((r) => r.v),
    );
    for (const text of leftBehind) expect(() => JSON.parse(text), text.slice(0, 80)).not.toThrow();
    const added = bytes.history + bytes.log + bytes.prompts - (empty.history + empty.log + empty.prompts);
    console.log(
      `store-once: a ${CONTENT_CHARS}-character prompt added ${added} bytes (history ${bytes.history - empty.history}, log ${bytes.log - empty.log}, prompts ${bytes.prompts - empty.prompts}); the database grew ${size - empty.size} bytes`,
    );
    expect(added).toBeLessThan(CONTENT_CHARS * 1.1);
    // And the file: its state changes (queued, running, done) leave no stale copy of the content in free pages.
    expect(size - empty.size).toBeLessThan(CONTENT_CHARS * 1.5);
    // The model got it, and a reader of the history (REST) still sees it.
    const [call] = await mockCalls(key);
    expect(call.body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: `${text} [[mock:${key}]]` }] });
    const history = (await (await fetchRest(`/v1/sessions/${sessionId}/history`)).json()) as { messages: { message: { role: string; content: unknown } }[] };
    expect(history.messages[0]!.message).toEqual(call.body.messages.at(-1));
    client.close();
  });

  it("replays byte for byte what was sent live, on session/load and on session/resume from a seq", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "seen" }]);
    const a = await TestClient.ready();
    const sessionId = await a.newSession(CWD);
    // Attached before the prompt: it gets the user's chunks live (the prompter does not).
    const live = await TestClient.ready();
    await live.call("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    const { text } = bigText("replay");
    const prompt: ContentBlock[] = [
      { type: "text", text: `${text} é😀 \ud800 \u2028 "quoted" \\ back "content": {} [[mock:${key}]]` },
      { type: "resource_link", uri: "file:///work/store-once/a.ts", name: "a.ts" },
      { type: "resource", resource: { uri: "file:///work/store-once/b.ts", mimeType: "text/x-typescript", text: "export const b = 1;\n" } },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "text", text: "with meta", _meta: { n: 0.1 + 0.2, big: 1e21, tiny: 5e-324, nested: { "2": "two", "1": "one", b: [null, true] } } } as ContentBlock,
    ];
    expect((await a.call("session/prompt", { sessionId, prompt })).stopReason).toBe("end_turn");
    await live.turnEnded(sessionId);
    const sentLive = live.logged(sessionId);
    expect(userChunks(sentLive)).toHaveLength(prompt.length);

    const loader = await TestClient.ready();
    const load = loader.start("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    await load.response;
    const resumer = await TestClient.ready();
    const resume = resumer.start("session/resume", { sessionId, cwd: CWD, _meta: { hermes: { afterSeq: 0 } } });
    await resume.response;
    for (const [client, id] of [
      [loader, load.id],
      [resumer, resume.id],
    ] as const) {
      const frames = replayed(client, id, sessionId);
      expect(userChunks(frames)).toEqual(userChunks(sentLive));
      for (const frame of sentLive) {
        const again = frames.find((f) => seqOf(f) === seqOf(frame));
        expect(again, `seq ${seqOf(frame)}`).toBeDefined();
        expect(client.rawOf(again!)).toBe(live.rawOf(frame));
      }
    }
    for (const c of [a, live, loader, resumer]) c.close();
  });

  it("/retry runs the stored prompt again, still without a copy of it", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "first" }, { text: "again" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    const { marker, text } = bigText("retry");
    const content = [{ type: "text", text: `${text} [[mock:${key}]]` }];
    await client.call("session/prompt", { sessionId, prompt: content });
    expect(await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/retry" }] })).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(2);
    expect(calls[1].body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(calls[1].body.messages[1].content).toEqual(content);
    expect(calls[1].body.messages[3].content).toEqual(content);
    expect(await inSession(sessionId, (sql) => copies(sql, marker))).toEqual({ history: 0, log: 0, prompts: 1 });
    client.close();
  });

  it("runs a prompt queued behind a turn from its row, and stores each once", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ chunks: ["a", "b", "c"], chunkDelayMs: 200 }, { text: "second answer" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    const one = bigText("first");
    const two = bigText("queued");
    const first = client.prompt(sessionId, [{ type: "text", text: `${one.text} [[mock:${key}]]` }]);
    await client.next((f) => f.params?.update?.sessionUpdate === "agent_message_chunk");
    const second = client.prompt(sessionId, [{ type: "text", text: `${two.text} [[mock:${key}]]` }]);
    expect((await first.response).result).toEqual({ stopReason: "end_turn" });
    expect((await second.response).result).toEqual({ stopReason: "end_turn" });
    const calls = await mockCalls(key);
    expect(calls[1].body.messages.at(-1).content[0].text).toBe(`${two.text} [[mock:${key}]]`);
    for (const { marker } of [one, two]) expect(await inSession(sessionId, (sql) => copies(sql, marker))).toEqual({ history: 0, log: 0, prompts: 1 });
    const reader = await TestClient.ready();
    const load = reader.start("session/load", { sessionId, cwd: CWD, mcpServers: [] });
    await load.response;
    expect(userChunks(replayed(reader, load.id, sessionId)).map((c) => c.text)).toEqual([`${one.text} [[mock:${key}]]`, `${two.text} [[mock:${key}]]`]);
    client.close();
    reader.close();
  });

  it("keeps referring to the prompt when compaction carries it into the new segment", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "first answer", usage: BIG_USAGE }, { text: `SUMMARY [[mock:${key}]]` }, { text: "second answer" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `first [[mock:${key}]]` }] });
    const { marker, text } = bigText("kept");
    await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    const calls = await mockCalls(key);
    expect(calls).toHaveLength(3);
    expect(calls[2].body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "user"]);
    expect(calls[2].body.messages[2].content).toEqual([{ type: "text", text }]);
    const { found, refs } = await inSession(sessionId, (sql) => ({
      found: copies(sql, marker),
      refs: sql.exec<{ segment: number }>(`SELECT segment FROM history WHERE prompt_id IS NOT NULL ORDER BY id`).toArray().map((r) => r.segment),
    }));
    expect(found).toEqual({ history: 0, log: 0, prompts: 1 });
    // Both prompts in segment 0, and the kept one again in segment 1.
    expect(refs).toEqual([0, 0, 1]);
    client.close();
  });

  it("is copied into a fork, which replays and sends it like its source", async () => {
    const key = uniqueKey();
    await mockScript(key, [{ text: "answer" }, { text: "fork answer" }]);
    const client = await TestClient.ready();
    const sessionId = await client.newSession(CWD);
    const { text } = bigText("fork");
    await client.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `${text} [[mock:${key}]]` }] });
    const fork = await client.call("session/fork", { sessionId, cwd: CWD });
    await client.call("session/prompt", { sessionId: fork.sessionId, prompt: [{ type: "text", text: `more [[mock:${key}]]` }] });
    const calls = await mockCalls(key);
    expect(calls[1].body.messages[1].content).toEqual([{ type: "text", text: `${text} [[mock:${key}]]` }]);
    const reader = await TestClient.ready();
    const load = reader.start("session/load", { sessionId: fork.sessionId, cwd: CWD, mcpServers: [] });
    await load.response;
    expect(userChunks(replayed(reader, load.id, fork.sessionId)).map((c) => c.text)).toEqual([`${text} [[mock:${key}]]`, `more [[mock:${key}]]`]);
    client.close();
    reader.close();
  });
});

describe("a session stored before prompts were stored once", () => {
  /** The schema as versions 1–4 left it (session-store.ts, never edited once shipped). */
  const V4 = [
    `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)`,
    `CREATE TABLE log (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL)`,
    `CREATE TABLE prompts (id INTEGER PRIMARY KEY AUTOINCREMENT, connection_id TEXT, request_id TEXT, prompt TEXT NOT NULL, state TEXT NOT NULL, stop_reason TEXT, created_at INTEGER NOT NULL)`,
    `CREATE INDEX prompts_state ON prompts (state, id)`,
    `CREATE TABLE attachments (connection_id TEXT PRIMARY KEY, client_caps TEXT NOT NULL, attached_at INTEGER NOT NULL)`,
    `ALTER TABLE history ADD COLUMN segment INTEGER NOT NULL DEFAULT 0`,
    `CREATE INDEX history_segment ON history (segment, id)`,
    `CREATE TABLE mcp_servers (connection_id TEXT PRIMARY KEY, entries TEXT NOT NULL)`,
    `ALTER TABLE attachments ADD COLUMN access TEXT`,
    `CREATE TABLE schema_version (version INTEGER NOT NULL)`,
    `INSERT INTO schema_version (version) VALUES (4)`,
  ];

  it("loads its full rows, and new prompts stored once join them in one replay", async () => {
    const stub = env.SESSION.get(env.SESSION.idFromName(`old-shape-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_instance, ctx) => {
      const sql = ctx.storage.sql;
      // The object made its current schema when it started: wipe it and lay down the old one.
      const tables = sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`);
      for (const { name } of tables.toArray()) sql.exec(`DROP TABLE "${name}"`);
      for (const statement of V4) sql.exec(statement);
      const sessionId = "s-old-shape";
      const record = { sessionId, tenant: "alpha", segment: 0, interruptedPrompt: null } as SessionRecord;
      sql.exec(`INSERT INTO meta (key, value) VALUES ('session', ?)`, JSON.stringify(record));
      // One turn as the code before stored it: the prompt in all three tables.
      const oldPrompt: ContentBlock[] = [{ type: "text", text: "old prompt ✓" }];
      sql.exec(`INSERT INTO prompts (connection_id, request_id, prompt, state, created_at) VALUES ('c-old', '1', ?, 'done', 1)`, JSON.stringify(oldPrompt));
      const oldMessages = [
        { role: "user", content: [{ type: "text", text: "old prompt ✓" }] },
        { role: "assistant", content: "old answer" },
      ];
      for (const m of oldMessages) sql.exec(`INSERT INTO history (body) VALUES (?)`, JSON.stringify(m));
      const oldFrames = [
        notificationFrame("session/update", { sessionId, update: userMessageChunk(oldPrompt[0]!, "m-old"), _meta: updateSeqMeta(1, "c-old") }),
        notificationFrame("session/update", { sessionId, update: agentMessageChunk("old answer", "m-old-2"), _meta: updateSeqMeta(2) }),
      ];
      oldFrames.forEach((frame, i) => sql.exec(`INSERT INTO log (seq, frame) VALUES (?, ?)`, i + 1, frame));

      const store = new SessionStore(sql);
      store.migrate();
      expect(store.history()).toEqual(oldMessages);
      expect(store.recentPrompts(5)).toEqual([oldPrompt]);

      // A prompt the old code queued (its content in prompts.prompt) and a new one run after the upgrade,
      // stored the way the prompt runner stores a turn's prompt.
      const queuedText = "queued before ".repeat(50);
      sql.exec(`INSERT INTO prompts (connection_id, request_id, prompt, state, created_at) VALUES ('c-old', '2', ?, 'queued', 2)`, JSON.stringify([{ type: "text", text: queuedText }]));
      const sent: string[] = [];
      const log = new UpdateLog(store, () => async (frames) => {
        sent.push(...frames);
        return true;
      });
      log.attach({ connectionId: "c-reader", tenant: "alpha", clientCapabilities: {} });
      const newText = "new prompt ".repeat(100);
      store.enqueuePrompt("c-new", 3, [{ type: "text", text: newText }], 3);
      for (const [i, row] of store.promptsIn("queued").entries()) {
        for (const block of row.prompt) log.emit(userMessageChunk(block, `m-${i}`), { promptedThrough: row.connectionId });
        store.appendPrompt(row.prompt);
        log.emit(agentMessageChunk(`answer ${i}`, `m-${i}-answer`));
        store.setPromptState(row.id, "done", "end_turn");
      }
      await log.drained("c-reader");
      const liveFrames = [...sent];
      expect(liveFrames).toHaveLength(4);
      expect(copies(sql, "new prompt")).toEqual({ history: 0, log: 0, prompts: 1 });
      expect(copies(sql, "queued before")).toEqual({ history: 0, log: 0, prompts: 1 });

      // A fresh object over the same storage: both shapes read back as they were.
      const fresh = new SessionStore(sql);
      fresh.migrate();
      const userOf = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
      expect(fresh.history()).toEqual([...oldMessages, userOf(queuedText), userOf(newText)]);
      expect(fresh.recentPrompts(5)).toEqual([[{ type: "text", text: newText }], [{ type: "text", text: queuedText }], oldPrompt]);
      const all = [...fresh.logPages(0, fresh.lastSeq())].flat();
      expect(all.slice(0, 2)).toEqual(oldFrames);
      expect(all.slice(2)).toEqual(liveFrames);
      const chunk = (text: string, messageId: string, seq: number, from: string) =>
        notificationFrame("session/update", { sessionId, update: userMessageChunk({ type: "text", text }, messageId), _meta: updateSeqMeta(seq, from) });
      expect(all[2]).toBe(chunk(queuedText, "m-0", 3, "c-old"));
      expect(all[4]).toBe(chunk(newText, "m-1", 5, "c-new"));
    });
  });
});

function fetchRest(path: string): Promise<Response> {
  return SELF.fetch(`http://hermes.test${path}`, { headers: { Authorization: "Bearer tok-alpha" } });
}
