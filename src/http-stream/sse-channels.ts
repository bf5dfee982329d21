/**
 * The SSE side of one Streamable HTTP connection: the connection's stream and
 * one stream per session, each with a short buffer of what it sent so a stream
 * that drops and comes back with `Last-Event-ID` gets what it missed. Event ids
 * are the update log's seq (`_meta.hermes.seq`) when the frame carries one, so
 * an id a client kept means the same thing as the seq a WebSocket client keeps.
 * Held in memory: an open stream keeps its object awake, so nothing here is
 * lost to hibernation while a client is listening.
 */
import { frameRoute, type FrameRoute } from "./frame-route.js";

const BUFFERED_EVENTS = 512;
/** A session's stream closes this long (5 minutes) after it opened or last sent an event; the client reopens it. */
export const SSE_IDLE_MS = 5 * 60_000;
const encoder = new TextEncoder();

interface Sent {
  id: string;
  seq: number | undefined;
  data: string;
  /** Written to a stream once; frames sent while none was open go out when one opens. */
  written: boolean;
}

interface Channel {
  writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  sent: Sent[];
  /** The last seq sent, and how many frames without one followed it: ids stay ordered. */
  lastSeq: number;
  after: number;
  idle: ReturnType<typeof setTimeout> | undefined;
}

export class SseChannels {
  readonly #channels = new Map<string, Channel>();
  /** JSON-RPC ids of requests POSTed for a session, so their answers go on its stream. */
  readonly #requestSessions = new Map<string, string>();
  readonly #captured = new Map<string, (frame: string) => void>();

  constructor(private readonly idleMs: number) {}

  /** The answer to request `id` is handed back here instead of being streamed (the initialize POST). */
  capture(id: string | number): Promise<string> {
    return new Promise((resolve) => this.#captured.set(JSON.stringify(id), resolve));
  }

  /** A request POSTed with `Acp-Session-Id`: its answer belongs to that session's stream. */
  requestFor(sessionId: string, id: string | number): void {
    this.#requestSessions.set(JSON.stringify(id), sessionId);
  }

  /** Opens (or reopens) a stream: `""` is the connection's, otherwise a session id. */
  open(key: string, lastEventId: string | null): Response {
    const channel = this.#channel(key);
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
    const missed = lastEventId === null ? channel.sent.filter((e) => !e.written) : missedAfter(channel.sent, lastEventId);
    for (const event of missed) this.#write(channel, event);
    this.#touch(key, channel);
    return new Response(readable, {
      status: 200,
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" },
    });
  }

  /** One frame from the connection: to the capture, the session's stream, or the connection's. */
  send(frame: string): void {
    const route: FrameRoute = frameRoute(frame);
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
    const seq = route.seq;
    let id: string;
    if (seq !== undefined && seq > channel.lastSeq) {
      channel.lastSeq = seq;
      channel.after = 0;
      id = String(seq);
    } else {
      channel.after += 1;
      id = `${channel.lastSeq}.${channel.after}`;
    }
    const event: Sent = { id, seq, data: frame, written: false };
    channel.sent.push(event);
    if (channel.sent.length > BUFFERED_EVENTS) channel.sent.shift();
    this.#write(channel, event);
    this.#touch(key, channel);
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
      void channel.writer?.close().catch(() => undefined);
    }
    this.#channels.clear();
  }

  #takeRequest(key: string): string | undefined {
    const sessionId = this.#requestSessions.get(key);
    this.#requestSessions.delete(key);
    return sessionId;
  }

  #channel(key: string): Channel {
    let channel = this.#channels.get(key);
    if (!channel) {
      channel = { writer: undefined, sent: [], lastSeq: 0, after: 0, idle: undefined };
      this.#channels.set(key, channel);
    }
    return channel;
  }

  #write(channel: Channel, event: Sent): void {
    const writer = channel.writer;
    if (!writer) return;
    event.written = true;
    writer.write(encoder.encode(sseEvent(event.id, event.data))).catch(() => {
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

/** The events after `lastEventId`: by position when it is still buffered, else by seq. */
export function missedAfter(sent: readonly Sent[], lastEventId: string): Sent[] {
  const at = sent.findIndex((e) => e.id === lastEventId);
  if (at >= 0) return sent.slice(at + 1);
  const seq = Number.parseFloat(lastEventId);
  if (!Number.isFinite(seq)) return [...sent];
  return sent.filter((e) => Number.parseFloat(e.id) > seq);
}

/** One SSE event; a JSON frame has no newlines, but the data field is split on them anyway. */
export function sseEvent(id: string, data: string): string {
  return `id: ${id}\n${data.split("\n").map((line) => `data: ${line}\n`).join("")}\n`;
}
