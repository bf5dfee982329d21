/**
 * The SSE side of one Streamable HTTP connection: the connection's stream and
 * one stream per session, each with a short buffer of what it sent, so a stream
 * that drops and comes back with `Last-Event-ID` gets what it missed. Event ids
 * are positions (event-id.ts): on a session's stream, the update log's seq.
 * When a session stream's buffer no longer reaches back to the client's id (a
 * long gap, or this object restarted and the buffer is gone), the missing
 * logged frames are read from the session's durable update log (`ReadLog`);
 * what the log does not hold (responses, requests to the editor) is only ever
 * in the buffer. Held in memory: an open stream keeps its object awake.
 */
import type { LogPage } from "../session/session-rpc.js";
import { eventId, isBefore, type EventPosition } from "./event-id.js";
import { frameRoute } from "./frame-route.js";

const BUFFERED_EVENTS = 512;
/** A session's stream closes this long (5 minutes) after it opened or last sent an event; the client reopens it. */
export const SSE_IDLE_MS = 5 * 60_000;
const encoder = new TextEncoder();
const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" };

/** A page of a session's update log after `afterSeq` (up to `untilSeq`); null when the connection is not attached to it. Throws when it cannot be read. */
export type ReadLog = (sessionId: string, afterSeq: number, untilSeq: number) => Promise<LogPage | null>;

interface Sent {
  position: EventPosition;
  data: string;
  /** Written to a stream once; frames sent while none was open go out when one opens. */
  written: boolean;
}

/** A resumed stream reading the log: frames that arrive meanwhile wait in `held`, and those the log gave it are not sent again. */
interface CatchUp {
  held: string[];
  /** Held frames with a seq in (`after`, `upTo`] came from the log already. */
  after: number;
  upTo: number;
}

interface Channel {
  writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  sent: Sent[];
  /** The last seq sent, and how many frames without one followed it: ids stay ordered. */
  lastSeq: number;
  after: number;
  idle: ReturnType<typeof setTimeout> | undefined;
  catchUp: CatchUp | undefined;
}

export class SseChannels {
  readonly #channels = new Map<string, Channel>();
  /** JSON-RPC ids of requests POSTed for a session, so their answers go on its stream. */
  readonly #requestSessions = new Map<string, string>();
  readonly #captured = new Map<string, (frame: string) => void>();

  constructor(
    private readonly idleMs: number,
    private readonly readLog?: ReadLog,
  ) {}

  /** The answer to request `id` is handed back here instead of being streamed (the initialize POST). */
  capture(id: string | number): Promise<string> {
    return new Promise((resolve) => this.#captured.set(JSON.stringify(id), resolve));
  }

  /** A request POSTed with `Acp-Session-Id`: its answer belongs to that session's stream. */
  requestFor(sessionId: string, id: string | number): void {
    this.#requestSessions.set(JSON.stringify(id), sessionId);
  }

  /**
   * Opens (or reopens) a stream: `""` is the connection's, otherwise a session
   * id. `from` is the client's `Last-Event-ID`. A session stream whose buffer
   * does not reach back to it reads the gap from the log first; "not_attached"
   * when the session does not know this connection (it must resume the session).
   */
  async open(key: string, from: EventPosition | null): Promise<Response | "not_attached"> {
    const channel = this.#channel(key);
    if (channel.catchUp) {
      // A catch-up still under way is given up: its stream goes, and what it held takes its place unwritten.
      const old = channel.writer;
      channel.writer = undefined;
      void old?.close().catch(() => undefined);
      this.#release(key, channel);
    }
    const untilSeq = from === null || key === "" || !this.readLog ? undefined : gapEnd(channel, from);
    if (from === null || untilSeq === undefined || untilSeq <= from.seq) {
      const stream = this.#stream(channel);
      const missed = from === null ? channel.sent.filter((e) => !e.written) : channel.sent.filter((e) => isBefore(from, e.position));
      for (const event of missed) this.#write(channel, event);
      this.#touch(key, channel);
      return sseResponse(stream.readable);
    }
    const catchUp: CatchUp = { held: [], after: from.seq, upTo: from.seq };
    channel.catchUp = catchUp;
    let page: LogPage | null;
    try {
      page = await this.readLog!(key, from.seq, untilSeq);
    } catch (err) {
      this.#release(key, channel);
      throw err;
    }
    if (channel.catchUp !== catchUp) return sseResponse(undefined); // another open of this stream came first
    if (page === null) {
      this.#release(key, channel);
      return "not_attached";
    }
    // Before the gap's frames are recorded: those older than the buffer go out ahead of it.
    const buffered = channel.sent.filter((e) => isBefore(from, e.position));
    if (channel.sent.length === 0) channel.lastSeq = Math.max(channel.lastSeq, from.seq);
    const stream = this.#stream(channel);
    this.#touch(key, channel);
    void this.#catchUp(key, channel, stream.writer, catchUp, page, untilSeq, buffered);
    return sseResponse(stream.readable);
  }

  /** One frame from the connection: to the capture, the session's stream, or the connection's. */
  send(frame: string): void {
    const route = frameRoute(frame);
    if (route.responseTo !== undefined) {
      const capture = this.#captured.get(route.responseTo);
      if (capture) {
        this.#captured.delete(route.responseTo);
        return capture(frame);
      }
    }
    const sessionId = route.sessionId ?? (route.responseTo !== undefined ? this.#takeRequest(route.responseTo) : undefined);
    const key = sessionId !== undefined && this.#channels.has(sessionId) ? sessionId : "";
    const channel = this.#channel(key);
    if (channel.catchUp) channel.catchUp.held.push(frame);
    else this.#accept(key, channel, frame, route.seq);
  }

  /** Whether a client is listening on any stream (the key watch runs while one is). */
  streaming(): boolean {
    for (const channel of this.#channels.values()) if (channel.writer) return true;
    return false;
  }

  /** DELETE /acp, or a revoked key: every stream ends. */
  closeAll(): void {
    for (const channel of this.#channels.values()) {
      if (channel.idle) clearTimeout(channel.idle);
      channel.catchUp = undefined;
      void channel.writer?.close().catch(() => undefined);
    }
    this.#channels.clear();
  }

  /** Writes the log's pages, then what the buffer held past the client's id, then what arrived meanwhile. */
  async #catchUp(key: string, channel: Channel, writer: Writer, catchUp: CatchUp, first: LogPage, untilSeq: number, buffered: Sent[]): Promise<void> {
    let page: LogPage | null = first;
    try {
      for (;;) {
        for (const { seq, frame } of page.entries) {
          // Past the buffer's end (it was empty: a restart) a logged frame extends the stream; before its start it only fills the gap.
          if (seq > channel.lastSeq) this.#accept(key, channel, frame, seq);
          else writeRaw(writer, eventId({ seq, after: 0 }), frame);
        }
        catchUp.upTo = Math.max(catchUp.upTo, page.cursor);
        if (!page.more || catchUp.upTo >= untilSeq || channel.catchUp !== catchUp) break;
        page = await this.readLog!(key, catchUp.upTo, untilSeq);
        if (page === null || channel.catchUp !== catchUp) break;
      }
    } catch (err) {
      // The stream ends where the log could not be read; the client comes back with the last id it got.
      console.error("a resumed SSE stream could not read the session's update log", { sessionId: key, err });
      if (channel.catchUp === catchUp) {
        if (channel.writer === writer) channel.writer = undefined;
        void writer.close().catch(() => undefined);
        this.#release(key, channel);
      }
      return;
    }
    if (channel.catchUp !== catchUp) return;
    for (const event of buffered) this.#write(channel, event);
    this.#release(key, channel);
    this.#touch(key, channel);
  }

  /** Ends a catch-up: its held frames take their place in the stream, less those the log already gave. */
  #release(key: string, channel: Channel): void {
    const catchUp = channel.catchUp;
    if (!catchUp) return;
    channel.catchUp = undefined;
    for (const frame of catchUp.held) {
      const seq = frameRoute(frame).seq;
      if (seq !== undefined && seq > catchUp.after && seq <= catchUp.upTo) continue;
      this.#accept(key, channel, frame, seq);
    }
  }

  /** Gives a frame its place (id) in the channel, buffers it and writes it if a stream is open. */
  #accept(key: string, channel: Channel, frame: string, seq: number | undefined): void {
    let position: EventPosition;
    if (seq !== undefined && seq > channel.lastSeq) {
      channel.lastSeq = seq;
      channel.after = 0;
      position = { seq, after: 0 };
    } else {
      channel.after += 1;
      position = { seq: channel.lastSeq, after: channel.after };
    }
    const event: Sent = { position, data: frame, written: false };
    channel.sent.push(event);
    if (channel.sent.length > BUFFERED_EVENTS) channel.sent.shift();
    this.#write(channel, event);
    this.#touch(key, channel);
  }

  /** A new stream for the channel, replacing (closing) the one it had. */
  #stream(channel: Channel): { writer: Writer; readable: ReadableStream<Uint8Array> } {
    if (channel.writer) void channel.writer.close().catch(() => undefined);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    channel.writer = writer;
    // A client that goes away (or a stream closed here) stops counting as listening.
    const gone = () => {
      if (channel.writer === writer) channel.writer = undefined;
    };
    writer.closed.then(gone, gone);
    // A comment first, so the client sees the stream open before any event.
    void writer.write(encoder.encode(": open\n\n")).catch(() => undefined);
    return { writer, readable };
  }

  #takeRequest(key: string): string | undefined {
    const sessionId = this.#requestSessions.get(key);
    this.#requestSessions.delete(key);
    return sessionId;
  }

  #channel(key: string): Channel {
    let channel = this.#channels.get(key);
    if (!channel) {
      channel = { writer: undefined, sent: [], lastSeq: 0, after: 0, idle: undefined, catchUp: undefined };
      this.#channels.set(key, channel);
    }
    return channel;
  }

  #write(channel: Channel, event: Sent): void {
    const writer = channel.writer;
    if (!writer) return;
    event.written = true;
    writer.write(encoder.encode(sseEvent(eventId(event.position), event.data))).catch(() => {
      // The client went away: later frames wait in the buffer for its Last-Event-ID.
      if (channel.writer === writer) channel.writer = undefined;
    });
  }

  /**
   * A session's stream closes after `idleMs` without an event (the SDK client
   * reopens it with the session's next message); the connection's stays open,
   * since the client treats its end as the end of the connection.
   */
  #touch(key: string, channel: Channel): void {
    if (key === "") return;
    if (channel.idle) clearTimeout(channel.idle);
    channel.idle = setTimeout(() => {
      const writer = channel.writer;
      channel.writer = undefined;
      void writer?.close().catch(() => undefined);
    }, this.idleMs);
  }
}

type Writer = WritableStreamDefaultWriter<Uint8Array>;

/**
 * The last seq the log must supply for a client at `from`: everything before
 * the buffer's first event (all of it when the buffer is empty). Logged seq N
 * is at position N.0, so a first event N.k (k > 0) still leaves N to the log.
 */
function gapEnd(channel: Channel, from: EventPosition): number | undefined {
  const first = channel.sent[0];
  if (!first) return Number.MAX_SAFE_INTEGER;
  if (!isBefore(from, first.position)) return undefined; // the buffer reaches back to it
  return first.position.after === 0 ? first.position.seq - 1 : first.position.seq;
}

function sseResponse(readable: ReadableStream<Uint8Array> | undefined): Response {
  if (!readable) return new Response(": superseded by a newer stream\n\n", { status: 200, headers: SSE_HEADERS });
  return new Response(readable, { status: 200, headers: SSE_HEADERS });
}

function writeRaw(writer: Writer, id: string, data: string): void {
  writer.write(encoder.encode(sseEvent(id, data))).catch(() => undefined);
}

/** One SSE event; a JSON frame has no newlines, but the data field is split on them anyway. */
export function sseEvent(id: string, data: string): string {
  return `id: ${id}\n${data.split("\n").map((line) => `data: ${line}\n`).join("")}\n`;
}
