import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { EditorOutput, type Pausable } from "../src/editor-output.js";
import { createLogger } from "../src/log.js";

/** A stdout the editor reads only when told to: every write stays buffered until `flush`. */
function slowStdout() {
  const waiting: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, callback) {
      waiting.push(callback);
    },
  });
  return { stream, flush: () => waiting.splice(0).forEach((done) => done()) };
}

function source(): Pausable & { events: string[] } {
  const events: string[] = [];
  return { events, pause: () => events.push("pause"), resume: () => events.push("resume") };
}

const frame = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { text: "x".repeat(64) } });

describe("EditorOutput backpressure", () => {
  it("pauses whichever source writes into a full stdout and resumes it on drain, the link of a reconnect included", async () => {
    const stdout = slowStdout();
    const out = new EditorOutput(stdout.stream, createLogger("error", () => undefined));
    const oldLink = source();
    const newLink = source();
    out.write(frame, oldLink);
    // The old socket dropped; the new one writes while stdout is still full.
    out.write(frame, newLink);
    out.write(frame, newLink);
    expect(oldLink.events).toEqual(["pause"]);
    expect(newLink.events).toEqual(["pause"]);
    // The editor reads: each buffered write completes in turn, then stdout drains.
    for (let i = 0; i < 5; i++) {
      stdout.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(newLink.events).toEqual(["pause", "resume"]);
    expect(oldLink.events).toEqual(["pause", "resume"]);
  });
});
