/**
 * The stderr of a process the proxy runs for the user (a stdio MCP server, a
 * local upstream agent): each line goes to the proxy's log as it comes, and
 * the last few are kept, so that the message saying the process stopped also
 * says what it said before (`Error: API key missing`), not only that it
 * stopped. Bounded: a process that floods stderr, or writes without newlines,
 * costs a fixed amount of memory. Pure apart from the `log` callback.
 * @module
 */

/** Lines kept for the message, and at most this many characters of them. */
const KEPT_LINES = 3;
const KEPT_CHARS = 300;
/** A line longer than this is logged and kept in pieces. */
const MAX_LINE = 4096;

/** Lines that say nothing about the cause: stack frames, Node's version banner, npm's pointer to its log file. */
const NOISE = [/^\s+at\s/, /^Node\.js v\d/, /A complete log of this run can be found in/, /^\s*\^+\s*$/];

export class StderrTail {
  #partial = "";
  readonly #lines: string[] = [];

  constructor(private readonly log: (line: string) => void) {}

  /** A chunk of the process's stderr. */
  push(chunk: Buffer | string): void {
    const parts = (this.#partial + String(chunk)).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const line of parts) this.#line(line);
    while (this.#partial.length > MAX_LINE) {
      this.#line(this.#partial.slice(0, MAX_LINE));
      this.#partial = this.#partial.slice(MAX_LINE);
    }
  }

  /** Forgets the lines kept so far (a start-up banner): from now on only what comes later can explain a stop. */
  forget(): void {
    this.#lines.length = 0;
  }

  /** Its last lines as a clause for a message (`; its stderr ended: "…"`), or "" when it said nothing useful. */
  describe(): string {
    const lines = this.#partial.trim() ? [...this.#lines, this.#partial.trim()].slice(-KEPT_LINES) : this.#lines;
    if (lines.length === 0) return "";
    const text = lines.join(" / ");
    return `; its stderr ended: "${text.length > KEPT_CHARS ? `…${text.slice(-KEPT_CHARS)}` : text}"`;
  }

  #line(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (!line.trim()) return;
    this.log(line);
    if (NOISE.some((pattern) => pattern.test(line))) return;
    this.#lines.push(line.trim());
    if (this.#lines.length > KEPT_LINES) this.#lines.shift();
  }
}
