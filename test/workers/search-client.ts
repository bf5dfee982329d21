/**
 * Helpers for the `session_search` tests: sessions that say something through
 * a real turn (so the feed indexes it), `GET /v1/search` reads and polling
 * until the background feed has caught up; or sessions seeded straight into
 * D1, for cases that need exact rows under a tenant of their own.
 */
import { env, SELF } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { expect } from "vitest";
import { sessions } from "../../schema/sessions.js";
import { SearchIndex } from "../../src/db/search-index.js";
import { sleep } from "./acp-test-client.js";
import { ScriptedEditor, uniqueCwd, uniqueKey } from "./scripted-editor.js";

/** A word no other test (or earlier run) says, so hits are this test's own. */
export const uniqueWord = () => `zq${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** `length` random CJK Unified Ideographs: a Chinese "word" no other test says (collisions are ~1 in 20,000^length). */
export function uniqueHan(length: number): string {
  const codes = crypto.getRandomValues(new Uint16Array(length));
  return String.fromCodePoint(...[...codes].map((c) => 0x4e00 + (c % 0x5000)));
}

export function search(query: string, token = "tok-alpha"): Promise<Response> {
  return SELF.fetch(`http://hermes.test/v1/search?${query}`, { headers: { Authorization: `Bearer ${token}` } });
}

export interface Hit {
  sessionId: string;
  title: string | null;
  cwd: string;
  updatedAt: string;
  snippet: string;
}

export async function hits(q: string, token = "tok-alpha", limit?: number): Promise<Hit[]> {
  const res = await search(`q=${encodeURIComponent(q)}${limit ? `&limit=${limit}` : ""}`, token);
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Hit[] }).results;
}

/** The index is fed after a turn ends, in the background: poll until `ready` holds (bounded). */
export async function eventually(q: string, ready: (found: Hit[]) => boolean, token = "tok-alpha"): Promise<Hit[]> {
  for (let i = 0; i < 100; i++) {
    const found = await hits(q, token);
    if (ready(found)) return found;
    await sleep(50);
  }
  throw new Error(`search for ${q} never satisfied the condition; last: ${JSON.stringify(await hits(q, token))}`);
}

/** A session whose one turn says `prompt` and gets `reply` from the model. */
export async function sessionSaying(prompt: string, reply: string, options: { token?: string; cwd?: string } = {}) {
  const editor = await ScriptedEditor.open(undefined, options.token ? { token: options.token } : {});
  const cwd = options.cwd ?? uniqueCwd();
  const sessionId = await editor.newSession(cwd);
  const key = uniqueKey();
  await editor.turn(sessionId, key, [{ text: reply }], prompt);
  return { editor, sessionId, cwd, key };
}

/** Model steps: call `session_search` with `args` (as tool call `s1`), then answer. */
export const searchCall = (args: Record<string, unknown>) => [{ toolCalls: [{ id: "s1", name: "session_search", arguments: args }] }, { text: "found" }];

/** A tenant no other test uses: hits under it are the test's own. */
export const tenantOf = () => `t-${crypto.randomUUID()}`;

/** A session of `tenant` whose user said each of `texts`, indexed as the feed would index it. */
export async function seed(tenant: string, texts: string[], options: { updatedAt?: number } = {}): Promise<string> {
  const id = crypto.randomUUID();
  const now = options.updatedAt ?? Date.now();
  await drizzle(env.DB).insert(sessions).values({ id, tenant, cwd: `/work/${id}`, model: "m", mode: "default", rootId: id, createdAt: now, updatedAt: now });
  await new SearchIndex(env.DB).add(texts.map((text, i) => ({ tenant, sessionId: id, role: "user" as const, text, digest: `${id}:${i}`, createdAt: now })));
  return id;
}
