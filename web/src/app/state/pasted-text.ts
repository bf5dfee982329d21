/**
 * Large pastes travel beside the prompt, not inside its textarea. Chromium
 * lays out a textarea's whole paragraph on every key: with a line of a
 * megabyte (a minified file, a base64 blob) each key cost half a second here
 * and a paste could take minutes, whatever the page did. A paste that would
 * take the box past {@link LARGE_PASTE_CHARS} is kept as a "pasted text"
 * item instead and sent as its own text block after what was typed. Text
 * dropped into the box (dragged in from another window) is the same text by
 * another way in, and is handled as a paste ({@link incomingTransfer}). Pure.
 * @module
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { formatSize } from "../../client/hermes-protocol.js";

/** Past this many characters in the box, a paste is kept aside. About 100 KB: a key stays well under 100 ms. */
export const LARGE_PASTE_CHARS = 100_000;

export interface PastedText {
  readonly text: string;
  /** UTF-8 size, as it will travel. */
  readonly bytes: number;
  readonly lines: number;
}

/** Whether pasting `pasted` into a box holding `current` should keep it aside. */
export function keepsPasteAside(current: string, pasted: string): boolean {
  return current.length + pasted.length > LARGE_PASTE_CHARS;
}

/** What the box reads of a paste's `clipboardData` or a drop's `dataTransfer` (a `DataTransfer`; structural, so Node tests can hand one in). */
export interface IncomingData<F> {
  readonly files?: ArrayLike<F> | null;
  getData(format: string): string;
}

/** What the box does with a paste or a drop: attach its files, keep its text aside, or let the browser insert it. */
export type Incoming<F> =
  | { readonly kind: "attach"; readonly files: readonly F[] }
  | { readonly kind: "aside"; readonly paste: PastedText }
  | { readonly kind: "insert" };

/**
 * A paste and a drop alike: files go to the attachments when the model takes images; text that would
 * take a box holding `current` past the bound is kept aside; anything else the browser inserts as usual.
 */
export function incomingTransfer<F>(current: string, data: IncomingData<F> | null | undefined, canAttachFiles: boolean): Incoming<F> {
  if (!data) return { kind: "insert" };
  const files = Array.from(data.files ?? []);
  if (canAttachFiles && files.length > 0) return { kind: "attach", files };
  const text = data.getData("text/plain");
  return keepsPasteAside(current, text) ? { kind: "aside", paste: pastedText(text) } : { kind: "insert" };
}

export function pastedText(text: string): PastedText {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) lines += 1;
  return { text, bytes: new TextEncoder().encode(text).length, lines };
}

/** `Pasted text, 1.0 MB, one line`: what the item says of itself. */
export function describePaste(paste: PastedText): string {
  return `Pasted text, ${formatSize(paste.bytes)}, ${paste.lines === 1 ? "one line" : `${paste.lines.toLocaleString("en-US")} lines`}`;
}

/** The prompt's blocks: what was typed, then the pasted texts, then the images. */
export function promptBlocks(typed: string, pastes: readonly PastedText[], images: readonly { mimeType: string; data: string }[]): ContentBlock[] {
  return [
    ...(typed.trim() ? [{ type: "text" as const, text: typed }] : []),
    ...pastes.map((p) => ({ type: "text" as const, text: p.text })),
    ...images.map((a) => ({ type: "image" as const, mimeType: a.mimeType, data: a.data })),
  ];
}
