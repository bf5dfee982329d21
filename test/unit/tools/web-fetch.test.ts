import { afterEach, describe, expect, it, vi } from "vitest";
import { webFetchTool } from "../../../src/tools/web-fetch.js";
import { FakeClient, fakeContext } from "./fakes.js";

const text = (block: unknown) => (block as { content: { text: string } }).content.text;
const ctx = () => fakeContext(new FakeClient({}));

function stubFetch(...responses: Array<Response | ((input: unknown, init?: RequestInit) => Promise<Response>)>) {
  const spy = vi.spyOn(globalThis, "fetch");
  for (const r of responses) {
    if (typeof r === "function") spy.mockImplementationOnce(r as typeof fetch);
    else spy.mockResolvedValueOnce(r);
  }
  return spy;
}

const html = (body: string, init: ResponseInit = {}) =>
  new Response(body, { status: 200, ...init, headers: { "content-type": "text/html; charset=utf-8", ...(init.headers ?? {}) } });

/** A fetch that only ends when its signal aborts, like a server that never answers. */
const never = (_: unknown, init?: RequestInit) =>
  new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("web_fetch", () => {
  it("fetches a page and reduces its HTML to text", async () => {
    const spy = stubFetch(html("<html><head><title>Docs</title><script>x()</script></head><body><h1>Intro</h1><p>Hello &amp; welcome</p></body></html>"));
    const outcome = await webFetchTool.run({ url: "https://example.com/docs" }, ctx());
    expect(spy).toHaveBeenCalledTimes(1);
    const [url, init] = spy.mock.calls[0] ?? [];
    expect(String(url)).toBe("https://example.com/docs");
    expect(init).toMatchObject({ method: "GET", redirect: "manual" });
    expect(outcome.output).toMatch(/^https:\/\/example\.com\/docs \(text\/html; charset=utf-8, \d+ bytes\)\n\nDocs\n\nIntro\n\nHello & welcome$/);
    expect(text(outcome.content?.[0])).toBe("Docs\n\nIntro\n\nHello & welcome");
    expect(outcome.rawOutput).toMatchObject({ url: "https://example.com/docs", status: 200, truncated: false });
  });

  it("returns text and JSON as they are", async () => {
    stubFetch(new Response('{"a": "<b>"}', { headers: { "content-type": "application/json" } }));
    await expect(webFetchTool.run({ url: "https://api.example.com/x" }, ctx())).resolves.toMatchObject({
      output: expect.stringMatching(/\n\n\{"a": "<b>"\}$/),
    });
  });

  it.each(["http://localhost:3000/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/", "file:///etc/passwd", "http://[::1]/"])(
    "refuses %s without fetching",
    async (url) => {
      const spy = vi.spyOn(globalThis, "fetch");
      await expect(webFetchTool.run({ url }, ctx())).rejects.toThrow(/local or private|Only http/);
      expect(spy).not.toHaveBeenCalled();
    },
  );

  it("follows a redirect to a public host", async () => {
    const spy = stubFetch(new Response(null, { status: 301, headers: { location: "/new" } }), new Response("moved here", { headers: { "content-type": "text/plain" } }));
    const outcome = await webFetchTool.run({ url: "https://example.com/old" }, ctx());
    expect(spy.mock.calls.map((c) => String(c[0]))).toEqual(["https://example.com/old", "https://example.com/new"]);
    expect(outcome.output).toMatch(/^https:\/\/example\.com\/new .*\n\nmoved here$/);
  });

  it("refuses a redirect to a private host", async () => {
    const spy = stubFetch(new Response(null, { status: 302, headers: { location: "http://127.0.0.1:8080/admin" } }));
    await expect(webFetchTool.run({ url: "https://example.com/" }, ctx())).rejects.toThrow(/127\.0\.0\.1 is a local or private address/);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("stops after too many redirects", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response(null, { status: 302, headers: { location: "/again" } }));
    await expect(webFetchTool.run({ url: "https://example.com/" }, ctx())).rejects.toThrow(/redirected more than 5 times/);
  });

  it("fails on an HTTP error status", async () => {
    stubFetch(new Response("nope", { status: 404, statusText: "Not Found" }));
    await expect(webFetchTool.run({ url: "https://example.com/missing" }, ctx())).rejects.toThrow("https://example.com/missing answered HTTP 404 Not Found.");
  });

  it("refuses binary content", async () => {
    stubFetch(new Response(new Uint8Array([0x89, 0x50]), { headers: { "content-type": "image/png" } }));
    await expect(webFetchTool.run({ url: "https://example.com/a.png" }, ctx())).rejects.toThrow(/is image\/png, not text/);
  });

  it("stops reading at 2 MB and says so", async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    stubFetch(new Response(body, { headers: { "content-type": "text/plain" } }));
    const outcome = await webFetchTool.run({ url: "https://example.com/huge" }, ctx());
    expect(outcome.rawOutput).toMatchObject({ bytes: 2 * 1024 * 1024, truncated: true });
    expect(outcome.output).toMatch(/2,097,152 bytes; stopped reading at 2 MB\)/);
    expect(outcome.output).toContain("[Truncated:");
    expect(text(outcome.content?.[0])).toMatch(/more characters not shown$/);
    expect(pulled).toBeLessThan(40);
  });

  it("reads a body of exactly 2 MB without calling it truncated", async () => {
    stubFetch(new Response("b".repeat(2 * 1024 * 1024), { headers: { "content-type": "text/plain" } }));
    const outcome = await webFetchTool.run({ url: "https://example.com/exact" }, ctx());
    expect(outcome.rawOutput).toMatchObject({ bytes: 2 * 1024 * 1024, truncated: false });
  });

  it("gives up after 15 s", async () => {
    vi.useFakeTimers();
    stubFetch(never);
    const run = webFetchTool.run({ url: "https://slow.example.com/" }, ctx());
    const settled = expect(run).rejects.toThrow("No complete answer within 15 s.");
    await vi.advanceTimersByTimeAsync(15_000);
    await settled;
  });

  it("stops when the turn is cancelled", async () => {
    stubFetch(never);
    const context = ctx();
    const run = webFetchTool.run({ url: "https://slow.example.com/" }, context);
    context.abort();
    await expect(run).rejects.toBeDefined();
    expect(context.signal.aborted).toBe(true);
  });

  it("reports network errors", async () => {
    stubFetch(() => Promise.reject(new TypeError("getaddrinfo ENOTFOUND nowhere.example")));
    await expect(webFetchTool.run({ url: "https://nowhere.example/" }, ctx())).rejects.toThrow(
      "Could not fetch https://nowhere.example/: getaddrinfo ENOTFOUND nowhere.example",
    );
  });

  it("is always offered and renders as a fetch", () => {
    expect(webFetchTool.available).toBeUndefined();
    expect(webFetchTool.kind).toBe("fetch");
    expect(webFetchTool.title({ url: "https://example.com" })).toBe("Fetch https://example.com");
  });
});
