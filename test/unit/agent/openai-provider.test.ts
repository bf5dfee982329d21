// The OpenAI provider's stream against the mock model server: deltas that one
// body read brings arrive as one step, and none is merged away.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelDelta } from "../../../src/agent/model-provider.js";
import { OpenAIProvider } from "../../../src/agent/openai-provider.js";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";

let mock: MockOpenAI;
let provider: OpenAIProvider;

beforeAll(async () => {
  mock = await startMockOpenAI();
  provider = new OpenAIProvider({ baseURL: `${mock.url}/v1`, apiKey: "test-key" });
});
afterAll(() => mock.close());

async function steps(key: string): Promise<ModelDelta[]> {
  const out: ModelDelta[] = [];
  const stream = provider.stream({ model: "mock-model", messages: [{ role: "user", content: `[[mock:${key}]]` }], tools: [], signal: new AbortController().signal });
  for (let next = await stream.next(); !next.done; next = await stream.next()) out.push(next.value);
  return out;
}

describe("OpenAIProvider.stream", () => {
  it("hands on the deltas of one read in one step, each delta kept apart in pieces and in order", async () => {
    // Written back to back, the 500 events reach Node's fetch in a few reads.
    mock.setScript("burst", [{ tokens: 500 }]);
    const got = await steps("burst");
    const deltas = got.flatMap((d) => d.pieces ?? [d.text]);
    expect(deltas).toEqual(Array.from({ length: 500 }, (_, i) => (i === 0 ? "t0" : ` t${i}`)));
    expect(got.length).toBeLessThan(500);
    for (const d of got) {
      expect(d.type).toBe("text");
      if (d.pieces) expect(d.text).toBe(d.pieces.join(""));
    }
  });

  it("keeps reasoning and text apart, in the model's order", async () => {
    mock.setScript("mixed", [{ reasoning: "think", text: "answer" }]);
    const got = await steps("mixed");
    const byKind = (type: ModelDelta["type"]) => got.filter((d) => d.type === type).map((d) => d.text).join("");
    expect(byKind("reasoning")).toBe("think");
    expect(byKind("text")).toBe("answer");
    expect(got[0]!.type).toBe("reasoning");
    expect(got[got.length - 1]!.type).toBe("text");
  });
});
