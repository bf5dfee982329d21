import { describe, expect, it } from "vitest";
import { sessionSearchTool } from "../../../src/tools/session-search.js";
import { FakeClient, fakeContext } from "./fakes.js";

describe("session_search", () => {
  it.each(["++ --", "。，！", "「」、・　？"])(
    "tells the model a query without a letter or digit (%s) searches nothing, instead of saying no session mentions it",
    async (query) => {
      // The fake context's D1 throws on any use: the tool must answer before it searches.
      const ctx = fakeContext(new FakeClient());
      await expect(sessionSearchTool.run({ query }, ctx)).rejects.toThrow(
        `The query "${query}" has no word to search for (only letters and digits are indexed); give words the messages would contain.`,
      );
    },
  );
});
