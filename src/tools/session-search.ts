/**
 * `session_search`: full-text search over the user and agent messages of the
 * tenant's earlier sessions (an FTS5 index in D1, fed as turns end by
 * session/search-feed.ts). Never returns the asking session (nor, for a
 * sub-agent, the sessions it was delegated from) or another tenant's; a
 * deleted session has left the index.
 */
import * as z from "zod";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SearchIndex, type SearchHit } from "../db/search-index.js";
import { searchPlan } from "../db/search-plan.js";
import { textBlock } from "./render.js";
import { ToolError, type Tool } from "./tool.js";

export const zSearchQuery = z.string().trim().min(1).max(500);
export const zSearchLimit = z.number().int().min(1).max(MAX_SEARCH_LIMIT);

const inputSchema = z.object({
  query: zSearchQuery.describe(
    "Words to look for; every word must appear in a message (stems match, e.g. test/testing). Chinese, Japanese or Korean text matches as written, inside longer text too.",
  ),
  limit: zSearchLimit.optional().describe(`How many sessions to return, 1–${MAX_SEARCH_LIMIT}. Default ${DEFAULT_SEARCH_LIMIT}.`),
});

export type SessionSearchInput = z.infer<typeof inputSchema>;

export function hitsForModel(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `No earlier session mentions "${query}".`;
  const lines = hits.map(
    (h, i) => `${i + 1}. ${h.title ?? "(untitled)"} — session ${h.sessionId}, cwd ${h.cwd}, updated ${h.updatedAt}\n   ${h.snippet.replaceAll("\n", " ")}`,
  );
  return `${hits.length} earlier session${hits.length === 1 ? "" : "s"} match "${query}" (best first):\n${lines.join("\n")}`;
}

export const sessionSearchTool: Tool<SessionSearchInput> = {
  name: "session_search",
  description:
    "Search the user's earlier sessions (their messages and yours) for past work: how something was done, a decision, an error seen before. " +
    "Returns per session its id, title, cwd, last update and a snippet around the match.",
  kind: "search",
  inputSchema,
  title: (input) => `Search earlier sessions: ${input.query}`,
  async run(input, ctx) {
    if (searchPlan(input.query) === null) {
      throw new ToolError(
        `The query "${input.query}" has no word to search for (only letters and digits are indexed); give words the messages would contain.`,
      );
    }
    const hits = await new SearchIndex(ctx.db).search(ctx.tenant, input.query, {
      limit: input.limit ?? DEFAULT_SEARCH_LIMIT,
      excludeSessionId: ctx.sessionId,
      readableBy: { user: ctx.owner ?? null },
    });
    const output = hitsForModel(input.query, hits);
    return { output, content: [textBlock(output)], rawOutput: { results: hits } };
  },
};
