/**
 * `session_search` over Chinese, Japanese and Korean text, in workerd with
 * real D1: the trigram index (migration 0006) for pieces of three or more
 * characters, LIKE for shorter ones, and the word index, untouched, for
 * queries without CJK text. Most cases seed D1 directly (each under a tenant
 * of its own, so no other test's rows can match); the first goes through
 * real turns, the feed, the tool and REST.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SearchIndex } from "../../src/db/search-index.js";
import { MAX_SNIPPET_CHARS } from "../../src/db/snippet.js";
import { ScriptedEditor, toolResults, uniqueCwd, uniqueKey } from "./scripted-editor.js";
import { eventually, hits, search, searchCall, seed, sessionSaying, tenantOf, uniqueHan } from "./search-client.js";

const index = () => new SearchIndex(env.DB);
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NO_WORD = (q: string) =>
  `Error: The query "${q}" has no word to search for (only letters and digits are indexed); give words the messages would contain.`;

const found = async (tenant: string, q: string, excludeSessionId?: string) =>
  (await index().search(tenant, q, { limit: 20, ...(excludeSessionId ? { excludeSessionId } : {}) })).map((h) => h.sessionId);

describe("session_search in CJK text", () => {
  it("finds a Chinese word inside a sentence, of three characters or of two, through a turn, the tool and REST", async () => {
    const three = uniqueHan(3);
    const two = uniqueHan(2);
    const earlier = await sessionSaying(`我们的数据库连接失败了，${three}报错`, `${two}已经修好了`);
    const [hit] = await eventually(three, (f) => f.length === 1);
    expect(hit).toMatchObject({ sessionId: earlier.sessionId, cwd: earlier.cwd });
    expect(hit!.snippet).toMatch(new RegExp(`^我们的数据库连接失败了，\\*\\*${three}\\*\\*报错 \\[\\[mock:`));
    expect((await eventually(two, (f) => f.length === 1))[0]!.snippet).toBe(`**${two}**已经修好了`);
    expect((await hits("数据库")).map((h) => h.sessionId)).toContain(earlier.sessionId);

    const now = await ScriptedEditor.open();
    const sessionId = await now.newSession(uniqueCwd());
    const turn = await now.turn(sessionId, uniqueKey(), searchCall({ query: `数据库 ${three}` }));
    expect(toolResults(turn.calls[1]).s1).toMatch(new RegExp(`^1 earlier session match "数据库 ${three}" \\(best first\\):\\n1\\. .*session ${earlier.sessionId},`));
    earlier.editor.close();
    now.close();
  });

  it("answers a query of only CJK punctuation as one of only Latin punctuation: no word to search for", async () => {
    const res = await search(`q=${encodeURIComponent("。，！")}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ query: "。，！", results: [] });
    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(uniqueCwd());
    const key = uniqueKey();
    const queries = { cjk: "。，！", mixed: "「」、・　？", latin: "++ --" };
    const turn = await editor.turn(sessionId, key, [
      { toolCalls: Object.entries(queries).map(([id, query]) => ({ id, name: "session_search", arguments: { query } })) },
      { text: "done" },
    ]);
    const read = toolResults(turn.calls[1]);
    for (const [id, query] of Object.entries(queries)) expect(read[id]).toBe(NO_WORD(query));
    editor.close();
  });

  it("bounds a long CJK query as any other: over 500 characters is refused, up to 500 is searched by its first 32 characters", async () => {
    const head = uniqueHan(32);
    const earlier = await sessionSaying(`${head}之后的内容不一样`, "ok");
    await eventually(head, (f) => f.length === 1);
    const long = `${head}${"长".repeat(468)}`;
    expect((await hits(long)).map((h) => h.sessionId)).toEqual([earlier.sessionId]);
    const tooLong = await search(`q=${encodeURIComponent(`${long}长`)}`);
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as any).error).toMatchObject({ code: -32602, message: expect.stringMatching(/^invalid query/) });

    const editor = await ScriptedEditor.open();
    const sessionId = await editor.newSession(uniqueCwd());
    const turn = await editor.turn(sessionId, uniqueKey(), [
      { toolCalls: [{ id: "long", name: "session_search", arguments: { query: long } }, { id: "over", name: "session_search", arguments: { query: `${long}长` } }] },
      { text: "done" },
    ]);
    const read = toolResults(turn.calls[1]);
    expect(read.long).toMatch(new RegExp(`^1 earlier session match .*session ${earlier.sessionId},`, "s"));
    expect(read.over).toMatch(/^Error: Invalid arguments for session_search: query: /);
    earlier.editor.close();
    editor.close();
  });
  it("requires every piece: a two-character word beside a longer one filters its matches", async () => {
    const tenant = tenantOf();
    const both = await seed(tenant, ["部署失败，缓存没有清空"]);
    await seed(tenant, ["部署失败了"]);
    await seed(tenant, ["缓存清空了"]);
    expect(await found(tenant, "部署失败 缓存")).toEqual([both]);
    expect(await found(tenant, "缓存 部署")).toEqual([both]);
  });

  it("finds a word of one or two characters alone by scanning, the message where it occurs most first", async () => {
    const tenant = tenantOf();
    const once = await seed(tenant, ["这是数据"], { updatedAt: Date.now() + 1_000 });
    const thrice = await seed(tenant, ["数据，数据，还是数据"]);
    await seed(tenant, ["没有相关内容"]);
    expect(await found(tenant, "数据")).toEqual([thrice, once]);
    expect(await found(tenant, "据")).toEqual([thrice, once]);
    const [hit] = await index().search(tenant, "数据");
    expect(hit!.snippet).toBe("**数据**，**数据**，还是**数据**");
  });

  it("matches a mixed query's Latin word as a substring too, glued to Chinese text or not, in any case", async () => {
    const tenant = tenantOf();
    const glued = await seed(tenant, ["数据库连接timeout了"]);
    const spaced = await seed(tenant, ["数据库 连接 TIMEOUT"]);
    await seed(tenant, ["数据库连接正常"]);
    await seed(tenant, ["connection timeout"]);
    expect((await found(tenant, "数据库 timeout")).sort()).toEqual([glued, spaced].sort());
    expect((await found(tenant, "数据库timeout")).sort()).toEqual([glued, spaced].sort());
    const [hit] = await index().search(tenant, "数据库 timeout", { limit: 20 });
    expect(hit!.snippet).toMatch(/\*\*数据库\*\*.*\*\*(timeout|TIMEOUT)\*\*/);
  });

  it("keeps a query without CJK text on the word index as before: stems match, a word glued to Chinese text does not", async () => {
    const tenant = tenantOf();
    const spaced = await seed(tenant, ["数据库 连接 timeouts"]);
    await seed(tenant, ["数据库连接timeout了"]);
    expect(await found(tenant, "timeout")).toEqual([spaced]);
    const [hit] = await index().search(tenant, "timeout");
    expect(hit!.snippet).toBe("数据库 连接 **timeouts**");
  });

  it("finds Japanese and Korean words inside their sentences", async () => {
    const tenant = tenantOf();
    const ja = await seed(tenant, ["設定ファイルを読み込めませんでした"]);
    const ko = await seed(tenant, ["데이터베이스가 연결되지 않습니다. 서버를 확인하세요"]);
    expect(await found(tenant, "ファイル")).toEqual([ja]);
    expect(await found(tenant, "読み込め")).toEqual([ja]);
    expect(await found(tenant, "設定")).toEqual([ja]);
    expect(await found(tenant, "데이터베이스")).toEqual([ko]);
    expect(await found(tenant, "서버")).toEqual([ko]);
    expect(await found(tenant, "ファイル 서버")).toEqual([]);
  });

  it("keeps scoping: another tenant's, the asking session's and a deleted session's rows are never found", async () => {
    const tenant = tenantOf();
    const asking = await seed(tenant, ["缓存服务器挂了"]);
    const other = await seed(tenant, ["缓存服务器挂了"]);
    await seed(tenantOf(), ["缓存服务器挂了"]);
    for (const q of ["缓存服务器", "缓存"]) {
      expect(await found(tenant, q, asking)).toEqual([other]);
      expect((await found(tenant, q)).sort()).toEqual([asking, other].sort());
    }
    await index().deleteSession(other);
    expect(await found(tenant, "缓存服务器", asking)).toEqual([]);
    expect(await found(tenant, "缓存", asking)).toEqual([]);
  });

  it("bounds snippets of long CJK messages to the text around the match, never splitting an astral character", async () => {
    const tenant = tenantOf();
    await seed(tenant, [`${"𠮷".repeat(3_000)}a数据库b${"𠮷".repeat(1_000)}`]);
    for (const q of ["数据库", "数据"]) {
      const [hit] = await index().search(tenant, q);
      expect(hit!.snippet.length).toBeLessThanOrEqual(MAX_SNIPPET_CHARS + 2);
      expect(hit!.snippet).toMatch(/^…𠮷+a\*\*数据库?\*\*/u);
      expect(hit!.snippet).not.toMatch(LONE_SURROGATE);
    }
  });

  it("indexes only rows with CJK text by trigram, and drops them from it when their session is deleted", async () => {
    const tenant = tenantOf();
    const count = async () => (await env.DB.prepare("SELECT count(*) AS n FROM search_trigram_docsize").first<{ n: number }>())!.n;
    const before = await count();
    // 𠀀𠀁𠀂 are astral (Extension B): only the last of the GLOB patterns holds them.
    const id = await seed(tenant, ["plain English only", "𠀀𠀁𠀂", "設定"]);
    expect(await count()).toBe(before + 2);
    expect(await found(tenant, "𠀀𠀁𠀂")).toEqual([id]);
    await index().deleteSession(id);
    expect(await count()).toBe(before);
    expect(await found(tenant, "𠀀𠀁𠀂")).toEqual([]);
  });

});
