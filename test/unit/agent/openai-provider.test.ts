// OpenAIProvider's own signal handling against the mock model server: the turn's
// signal reaches the request it makes, before and while the answer streams.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "../../../src/agent/model-provider.js";
import { OpenAIProvider } from "../../../src/agent/openai-provider.js";
import { startMockOpenAI, type MockOpenAI } from "../../support/mock-openai.js";

let mock: MockOpenAI;
let provider: OpenAIProvider;

beforeAll(async () => {
  mock = await startMockOpenAI();
  provider = new OpenAIProvider({ baseURL: `${mock.url}/v1`, apiKey: "test-key" });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function request(key: string, signal: AbortSignal): ModelRequest {
  return { model: "mock-model", messages: [{ role: "system", content: `[[mock:${key}]]` }, { role: "user", content: "Hi" }], tools: [], signal };
}

describe("OpenAIProvider: the turn's signal", () => {
  it("makes no request when the turn is cancelled already", async () => {
    mock.setScript("before", [{ text: "never sent" }]);
    const turn = new AbortController();
    turn.abort();
    await expect(provider.stream(request("before", turn.signal)).next()).rejects.toThrow();
    expect(mock.calls("before")).toHaveLength(0);
  });

  it("cancelling while the answer streams ends the request, not only the reading", async () => {
    // A second chunk 30 s later: a read the cancel did not reach would wait for it.
    mock.setScript("during", [{ text: "Hello there", chunkSize: 6, chunkDelayMs: 30_000 }]);
    const turn = new AbortController();
    const stream = provider.stream(request("during", turn.signal));
    expect(await stream.next()).toEqual({ done: false, value: { type: "text", text: "Hello " } });
    turn.abort();
    await expect(stream.next()).rejects.toThrow();
    // The mock sees its socket closed.
    await expect.poll(() => mock.calls("during")[0]?.endAt, { timeout: 5_000 }).toBeDefined();
  });
});
