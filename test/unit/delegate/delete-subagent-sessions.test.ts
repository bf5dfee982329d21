import { describe, expect, it, vi } from "vitest";
import { MAX_CHILDREN_LISTED, type SessionIndex } from "../../../src/db/session-index.js";
import { deleteSubagentSessions } from "../../../src/delegate/delete-subagent-sessions.js";

/** The D1 index's `children` over an in-memory list of ids, a page at a time as the real one pages. */
function indexOf(ids: Set<string>): Pick<SessionIndex, "children"> {
  return { children: async () => [...ids].slice(0, MAX_CHILDREN_LISTED).map((id) => ({ id }) as Awaited<ReturnType<SessionIndex["children"]>>[number]) };
}

describe("deleteSubagentSessions", () => {
  it("deletes every sub-agent, past the first page", async () => {
    const ids = new Set(Array.from({ length: MAX_CHILDREN_LISTED + 20 }, (_, i) => `s${i}`));
    const destroy = vi.fn(async (id: string) => void ids.delete(id));
    await deleteSubagentSessions(indexOf(ids), "t", "parent", destroy);
    expect(ids.size).toBe(0);
    expect(destroy).toHaveBeenCalledTimes(MAX_CHILDREN_LISTED + 20);
  });

  it("tries each sub-agent once and ends, when deletes fail or leave their rows behind", async () => {
    const ids = new Set(Array.from({ length: MAX_CHILDREN_LISTED }, (_, i) => `s${i}`));
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    // Half fail, half answer without removing their row (an object with no record): neither may loop.
    const destroy = vi.fn(async (id: string) => {
      if (Number(id.slice(1)) % 2) throw new Error("unreachable");
    });
    await deleteSubagentSessions(indexOf(ids), "t", "parent", destroy);
    expect(destroy).toHaveBeenCalledTimes(MAX_CHILDREN_LISTED);
    expect(ids.size).toBe(MAX_CHILDREN_LISTED);
  });
});
