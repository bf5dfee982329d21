import { describe, expect, it } from "vitest";
import { applyMemoryEdit, MEMORY_CHAR_LIMIT, MEMORY_ENTRY_LIMIT, memoryCharacters, zMemoryEntries } from "../../../src/tools/memory-entries.js";
import { ToolError } from "../../../src/tools/tool.js";

const entries = ["Tests run with npm test", "Use pnpm, not npm, in the web package", "The API lives in src/http"];

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    return (err as Error).message;
  }
  throw new Error("expected a ToolError");
}

describe("applyMemoryEdit", () => {
  it("adds an entry at the end, trimmed, and ignores an exact duplicate", () => {
    expect(applyMemoryEdit(entries, { action: "add", content: "  Deploys go through CI  " })).toEqual([...entries, "Deploys go through CI"]);
    expect(applyMemoryEdit(entries, { action: "add", content: entries[0] })).toEqual(entries);
  });

  it("replaces the one entry that contains old_text, in place", () => {
    expect(applyMemoryEdit(entries, { action: "replace", old_text: "src/http", content: "The API lives in src/api" })).toEqual([
      entries[0],
      entries[1],
      "The API lives in src/api",
    ]);
  });

  it("removes the one entry that contains old_text", () => {
    expect(applyMemoryEdit(entries, { action: "remove", old_text: "pnpm" })).toEqual([entries[0], entries[2]]);
  });

  it("refuses ambiguous old_text and lists only the candidates", () => {
    const message = refusal(() => applyMemoryEdit(entries, { action: "remove", old_text: "npm" }));
    expect(message).toMatch(/"npm" is in 2 entries/);
    expect(message).toContain("- Tests run with npm test");
    expect(message).toContain("- Use pnpm, not npm, in the web package");
    expect(message).not.toContain("src/http");
  });

  it("refuses missing or unmatched old_text and lists every entry", () => {
    for (const old_text of [undefined, "  ", "yarn"]) {
      const message = refusal(() => applyMemoryEdit(entries, { action: "replace", old_text, content: "x" }));
      for (const e of entries) expect(message).toContain(`- ${e}`);
    }
    expect(refusal(() => applyMemoryEdit([], { action: "remove", old_text: "x" }))).toContain("The project memory is empty.");
  });

  it("requires content for add and replace", () => {
    expect(refusal(() => applyMemoryEdit(entries, { action: "add" }))).toMatch(/`content` is required for add/);
    expect(refusal(() => applyMemoryEdit(entries, { action: "replace", old_text: "pnpm", content: " " }))).toMatch(/`content` is required/);
  });

  it("refuses going over 4,000 characters and tells the model to consolidate", () => {
    const full = ["a".repeat(3_990)];
    expect(applyMemoryEdit(full, { action: "add", content: "b".repeat(10) })).toHaveLength(2);
    const message = refusal(() => applyMemoryEdit(full, { action: "add", content: "b".repeat(11) }));
    expect(message).toMatch(/4,001 characters, over its 4,000-character bound/);
    expect(message).toMatch(/Consolidate/);
    // A replace that shrinks is always allowed, even from a memory at the bound.
    expect(memoryCharacters(applyMemoryEdit(full, { action: "replace", old_text: "aaa", content: "short" }))).toBe(5);
  });

  it("never keeps the same entry twice: a replace that repeats another entry merges them", () => {
    expect(applyMemoryEdit(entries, { action: "replace", old_text: "src/http", content: entries[0] })).toEqual([entries[0], entries[1]]);
  });

  it("removes and replaces an entry stored twice (as older memories may hold it) instead of calling it ambiguous", () => {
    const doubled = ["Deploy with wrangler", "Use pnpm", "Deploy with wrangler"];
    expect(applyMemoryEdit(doubled, { action: "remove", old_text: "wrangler" })).toEqual(["Use pnpm"]);
    expect(applyMemoryEdit(doubled, { action: "replace", old_text: "wrangler", content: "Deploy with npm run deploy" })).toEqual([
      "Deploy with npm run deploy",
      "Use pnpm",
    ]);
  });

  it("refuses more entries than a PUT body may hold, so the memory it writes can always be written back", () => {
    const many = Array.from({ length: MEMORY_ENTRY_LIMIT }, (_, i) => `e${i}`);
    expect(zMemoryEntries.safeParse(many).success).toBe(true);
    expect(refusal(() => applyMemoryEdit(many, { action: "add", content: "one more" }))).toMatch(/201 entries, over its 200-entry bound[\s\S]*Consolidate/);
  });
});

describe("zMemoryEntries (PUT bodies)", () => {
  it("refuses the same entry twice (after trimming)", () => {
    expect(zMemoryEntries.safeParse(["one", " one "]).success).toBe(false);
  });

  it("accepts trimmed entries within the bound and rejects empty entries or too many characters", () => {
    expect(zMemoryEntries.parse([" one ", "two"])).toEqual(["one", "two"]);
    expect(zMemoryEntries.safeParse(["ok", "  "]).success).toBe(false);
    expect(zMemoryEntries.safeParse(["x".repeat(MEMORY_CHAR_LIMIT + 1)]).success).toBe(false);
    expect(zMemoryEntries.safeParse([1]).success).toBe(false);
  });
});
