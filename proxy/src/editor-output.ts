/**
 * The editor's side of the wire: stdout, one frame per line. Only ACP frames
 * are ever written here. When the editor reads slower than the service sends,
 * the source (the WebSocket) is paused until stdout drains.
 * @module
 */
import { errorFrame, resultFrame, type ClientAnswer } from "@hermes-edge/protocol";
import { encodeLine } from "./line-framing.js";
import type { Logger } from "./log.js";

/** Something that can stop and restart the flow of frames towards the editor. */
export interface Pausable {
  pause(): void;
  resume(): void;
}

export class EditorOutput {
  readonly #output: NodeJS.WritableStream;
  readonly #log: Logger;
  /** Sources paused until stdout drains; after a reconnect the new link joins the old one. */
  readonly #paused = new Set<Pausable>();

  constructor(output: NodeJS.WritableStream, log: Logger) {
    this.#output = output;
    this.#log = log;
  }

  /** Writes one frame (JSON text); `source` is paused if stdout is saturated. */
  write(jsonText: string, source?: Pausable): void {
    let line: string;
    try {
      line = encodeLine(jsonText);
    } catch {
      this.#log.warn("dropped a frame that could not be re-encoded as one line");
      return;
    }
    const flushed = this.#output.write(line);
    if (flushed || !source || this.#paused.has(source)) return;
    if (this.#paused.size === 0) {
      this.#output.once("drain", () => {
        for (const paused of this.#paused) paused.resume();
        this.#paused.clear();
      });
    }
    this.#paused.add(source);
    source.pause();
  }

  /** Writes the proxy's own answers to editor requests. */
  answer(answers: readonly ClientAnswer[]): void {
    for (const a of answers) this.write(a.error ? errorFrame(a.id, a.error) : resultFrame(a.id, a.result ?? null));
  }
}
