/**
 * A prompt's content is stored once: in its row of the prompts table. The
 * history's user message and the update log's `user_message_chunk` frames
 * that carry a stored prompt keep a reference to the row instead of a copy,
 * and are rebuilt from it when read, byte for byte what was stored before.
 *
 * What may be stored as a reference is known by object identity: the store
 * marks every prompt it parses from a row (the array and each block), and the
 * user message built from such a prompt. Only content that really is a row's
 * parsed content is ever referenced, so `JSON.stringify` of it, now or when
 * the row is parsed again later, gives the same text (a parse of
 * `JSON.stringify` output stringifies back to the same string).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

/** Where a logged block's content lives: block `block` of prompt row `promptId`. */
export interface BlockRef {
  promptId: number;
  block: number;
}

/**
 * A logged frame with its content replaced by `null` at `at` (UTF-16 units).
 * Still valid JSON, so code from before (a rolled-back deploy) reads a frame
 * with no content rather than one it cannot parse.
 */
export interface CutFrame {
  frame: string;
  at: number;
}

export class PromptRefs {
  /** Prompt arrays and user messages built from them → their prompt row. Weak: they go with their objects. */
  readonly #rows = new WeakMap<object, number>();
  readonly #blocks = new WeakMap<object, BlockRef>();

  /** Parses row `promptId`'s stored prompt and remembers where it and its blocks came from. */
  parse(promptId: number, json: string): ContentBlock[] {
    const prompt = JSON.parse(json) as ContentBlock[];
    this.#rows.set(prompt, promptId);
    prompt.forEach((block, i) => this.#blocks.set(block, { promptId, block: i }));
    return prompt;
  }

  /** The prompt row `value` (a parsed prompt, or a user message marked with `mark`) came from. */
  rowOf(value: object): number | undefined {
    return this.#rows.get(value);
  }

  /** Marks a user message as built from prompt row `promptId`, so a copy of it (compaction) references the row too. */
  mark(message: object, promptId: number): void {
    this.#rows.set(message, promptId);
  }

  /** Where a content block came from, if it is a block of a parsed prompt. */
  blockOf(content: unknown): BlockRef | undefined {
    return typeof content === "object" && content !== null ? this.#blocks.get(content) : undefined;
  }
}

const HOLE = "null";

/** `frame` with the first occurrence of `contentJson` replaced by `null`, and where; null when it is not there. */
export function cutContent(frame: string, contentJson: string): CutFrame | null {
  const at = frame.indexOf(contentJson);
  return at < 0 ? null : { frame: frame.slice(0, at) + HOLE + frame.slice(at + contentJson.length), at };
}

/** The frame `cutContent` was given, from what it returned and the same content. */
export function pasteContent(cut: CutFrame, contentJson: string): string {
  return cut.frame.slice(0, cut.at) + contentJson + cut.frame.slice(cut.at + HOLE.length);
}

/** Each block of a stored prompt as the JSON its frames carried. */
export function blockJsons(promptJson: string): string[] {
  return (JSON.parse(promptJson) as unknown[]).map((block) => JSON.stringify(block));
}
