import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../../src/agent/compaction.js";
import { messageJson } from "../../../src/agent/message-json.js";
import type { ChatMessage } from "../../../src/agent/model-provider.js";
import { HistoryCache } from "../../../src/session/history-cache.js";

const rowsOf = (messages: ChatMessage[]) => messages.map((m) => ({ body: JSON.stringify(m) }));
const turn = (n: number): ChatMessage[] => [
  { role: "user", content: `question ${n}` },
  { role: "assistant", content: `answer ${n}` },
];

describe("HistoryCache", () => {
  it("loads a segment's rows once and then hands out the same messages, appended to in order", () => {
    const cache = new HistoryCache();
    expect(cache.holds(0)).toBe(false);
    const loaded = cache.load(0, rowsOf([...turn(1), ...turn(2)]));
    expect(loaded).toEqual([...turn(1), ...turn(2)]);
    expect(cache.holds(0)).toBe(true);
    const [user, answer] = turn(3);
    cache.append(0, user!, JSON.stringify(user));
    cache.append(0, answer!, JSON.stringify(answer));
    const held = cache.messages();
    expect(held).toEqual([...turn(1), ...turn(2), ...turn(3)]);
    expect(held[0]).toBe(loaded[0]); // not parsed again
    expect(held[4]).toBe(user);
  });

  it("hands out a copy, so a turn's own list never grows the cache", () => {
    const cache = new HistoryCache();
    cache.load(0, rowsOf(turn(1)));
    cache.messages().push({ role: "user", content: "not stored" });
    expect(cache.messages()).toHaveLength(2);
  });

  it("keeps the token estimate as it goes, equal to estimating the whole history", () => {
    const cache = new HistoryCache();
    const history = [...turn(1), { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c", content: "out" }] as ChatMessage[];
    cache.load(0, rowsOf(history));
    const more = turn(2);
    for (const m of more) cache.append(0, m, JSON.stringify(m));
    expect(cache.tokens(0)).toBe(estimateTokens([...history, ...more]));
    expect(cache.tokens(1)).toBeUndefined();
  });

  it("ignores messages of another segment, so a compaction's new segment is read from storage", () => {
    const cache = new HistoryCache();
    cache.load(0, rowsOf(turn(1)));
    const summary: ChatMessage = { role: "user", content: "Summary" };
    cache.append(1, summary, JSON.stringify(summary));
    expect(cache.holds(1)).toBe(false);
    expect(cache.messages()).toEqual(turn(1));
    // Still, the message keeps its JSON for the request body.
    expect(messageJson(summary)).toBe(JSON.stringify(summary));
  });

  it("keeps only the counts when the segment outgrows its budget, at load or on append", () => {
    const big: ChatMessage = { role: "user", content: "x".repeat(200) };
    const cache = new HistoryCache(300);
    expect(cache.load(0, rowsOf([big, big]))).toHaveLength(2);
    expect(cache.holds(0)).toBe(false);
    expect(cache.heldChars).toBe(0);
    expect(cache.tokens(0)).toBe(estimateTokens([big, big]));

    const growing = new HistoryCache(300);
    growing.load(0, rowsOf([big]));
    expect(growing.holds(0)).toBe(true);
    growing.append(0, big, JSON.stringify(big));
    expect(growing.holds(0)).toBe(false);
    expect(growing.tokens(0)).toBe(estimateTokens([big, big]));
  });

  it("forgets everything on clear", () => {
    const cache = new HistoryCache();
    cache.load(0, rowsOf(turn(1)));
    cache.clear();
    expect(cache.holds(0)).toBe(false);
    expect(cache.tokens(0)).toBeUndefined();
  });
});
