/**
 * The service refuses a frame over `HERMES_MAX_FRAME_BYTES` without reading
 * it, so its error has `id: null` and names only the frame's size
 * (`data.frameBytes`). The client knows what it sent: the request of exactly
 * that size gets the error as its own answer, instead of waiting forever.
 * @module
 */
import * as z from "zod";
import { idKey, type Frame, type RequestId } from "./envelope.js";
import { formatSize, utf8Bytes } from "./utf8-size.js";

/** The service's frame limit unless `HERMES_MAX_FRAME_BYTES` says otherwise. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * The refusal's words, for whoever reads them (a person, in an editor or the web page): sizes in MB
 * and what to do. The exact numbers travel in the error's `data` (`frameBytes`, `limitBytes`).
 */
export function frameLimitMessage(frameBytes: number, limitBytes: number): string {
  // Rounded so that a frame just over the limit never reads as equal to it.
  const shown = frameBytes > limitBytes && formatSize(frameBytes) === formatSize(limitBytes) ? `${frameBytes.toLocaleString("en-US")} bytes` : formatSize(frameBytes);
  return `This message is ${shown}, more than the ${formatSize(limitBytes)} the service takes in one message. Send less at once: a shorter prompt, or the text as a file in the workspace.`;
}

/** Frames smaller than this cannot be over any sensible limit; they are not measured. */
const MEASURE_FROM_CHARS = 1024;

const zOversizeData = z.looseObject({ frameBytes: z.number().int().positive(), limitBytes: z.number().int().positive() });

/** The sizes of large requests still waiting for an answer. */
export class OversizeLedger {
  readonly #bySize = new Map<number, RequestId[]>();
  readonly #sizeOf = new Map<string, number>();

  sent(id: RequestId, text: string): void {
    if (text.length < MEASURE_FROM_CHARS) return;
    const bytes = utf8Bytes(text);
    this.#sizeOf.set(idKey(id), bytes);
    this.#bySize.set(bytes, [...(this.#bySize.get(bytes) ?? []), id]);
  }

  answered(id: RequestId): void {
    const key = idKey(id);
    const bytes = this.#sizeOf.get(key);
    if (bytes === undefined) return;
    this.#sizeOf.delete(key);
    const rest = (this.#bySize.get(bytes) ?? []).filter((other) => idKey(other) !== key);
    if (rest.length > 0) this.#bySize.set(bytes, rest);
    else this.#bySize.delete(bytes);
  }

  /** The oldest waiting request of exactly `bytes`, removed from the ledger. */
  take(bytes: number): RequestId | undefined {
    const id = this.#bySize.get(bytes)?.[0];
    if (id !== undefined) this.answered(id);
    return id;
  }
}

/** The sizes a `null`-id frame-limit error names, or null for any other frame. */
export function frameLimitRefusal(frame: Frame): { frameBytes: number; limitBytes: number } | null {
  if (frame.kind !== "response" || frame.message.id !== null || !frame.message.error) return null;
  const data = zOversizeData.safeParse(frame.message.error.data);
  return data.success ? { frameBytes: data.data.frameBytes, limitBytes: data.data.limitBytes } : null;
}

/** A `null`-id frame-limit error, re-addressed to the request it refused; any other frame unchanged. */
export function attributeOversize(frame: Frame, ledger: OversizeLedger): Frame {
  const refusal = frameLimitRefusal(frame);
  if (frame.kind !== "response" || !refusal) return frame;
  const id = ledger.take(refusal.frameBytes);
  if (id === undefined) return frame;
  return { kind: "response", message: { jsonrpc: "2.0", id, error: frame.message.error! } };
}
