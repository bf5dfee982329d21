/**
 * Lines from the editor the proxy answers itself: one too long to read and one
 * that is not JSON-RPC. Toad shows only `data.reason` and `data.details`, so the
 * sentence must be in `data.details`.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readEditor } from "../src/editor-input.js";
import { EditorOutput } from "../src/editor-output.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../src/line-framing.js";
import { createLogger } from "../src/log.js";

/** Feeds `lines` to readEditor as stdin and returns the frames it wrote to stdout and the frames it passed on. */
async function answersTo(lines: readonly (string | Buffer)[]): Promise<{ written: Record<string, unknown>[]; passed: string[] }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: Record<string, unknown>[] = [];
  stdout.on("data", (chunk: Buffer) => written.push(...chunk.toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)));
  const log = createLogger("error", () => undefined);
  const passed: string[] = [];
  const ended = new Promise<void>((end) => readEditor(stdin, new EditorOutput(stdout, log), log, { frame: (_frame, text) => passed.push(text), end }));
  for (const line of lines) stdin.write(line);
  stdin.end();
  await ended;
  return { written, passed };
}

describe("lines the proxy answers itself", () => {
  it("answers a line over the limit with id null and the sentence in data.details, and reads on", async () => {
    const tooLong = Buffer.alloc(DEFAULT_MAX_MESSAGE_BYTES + 1, "x");
    const next = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: {} });
    const { written, passed } = await answersTo([tooLong, "\n", `${next}\n`]);
    expect(written).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "A message from the editor was over hermes-edge-proxy's limit of 32 MB (33554432 bytes) and was dropped; it never reached the service.",
          data: { details: "A message from the editor was over hermes-edge-proxy's limit of 32 MB (33554432 bytes) and was dropped; it never reached the service." },
        },
      },
    ]);
    expect(passed).toEqual([next]);
  });

  it("answers a line that is not JSON-RPC with the decoder's code and the sentence in data.details", async () => {
    const { written, passed } = await answersTo(['{"jsonrpc":"2.0","id":7,"method":3}\n']);
    const error = written[0]?.["error"] as { code: number; message: string; data: Record<string, unknown> };
    expect(written[0]).toMatchObject({ id: 7 });
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/^hermes-edge-proxy cannot read a message from the editor \(Invalid request: .+\); it was not sent to the service\.$/);
    expect(error.data).toEqual({ detail: expect.any(String), details: error.message });
    expect(passed).toEqual([]);
  });
});
