/**
 * A session's conversation, oldest first: the user's prompts (queued ones
 * marked), the agent's answers as markdown, thoughts folded away, tool calls
 * and notices. New content is announced politely (role "log").
 * @module
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { useEffect, useRef } from "preact/hooks";
import type { Entry, Transcript } from "../state/transcript.js";
import { Markdown } from "./markdown.js";
import { ToolCallCard } from "./tool-call-card.js";

/** Beyond this a prompt is shown cut short: a pasted log of megabytes would only slow the page. */
const SHOWN_PROMPT_CHARS = 20_000;

function Block({ block }: { block: ContentBlock }) {
  if (block.type === "text") {
    const cut = block.text.length - SHOWN_PROMPT_CHARS;
    return (
      <p class="prompt-text">
        {cut > 0 ? block.text.slice(0, SHOWN_PROMPT_CHARS) : block.text}
        {cut > 0 ? <span class="muted"> … ({cut.toLocaleString()} more characters)</span> : null}
      </p>
    );
  }
  if (block.type === "image") return <img class="prompt-image" alt="Attached image" src={`data:${block.mimeType};base64,${block.data}`} />;
  if (block.type === "resource_link") return <p class="prompt-text">📎 {block.name}</p>;
  return <p class="prompt-text">[{block.type}]</p>;
}

function EntryView({ entry, transcript }: { entry: Entry; transcript: Transcript }) {
  switch (entry.kind) {
    case "user":
      return (
        <div class={`msg msg-user${entry.state === "queued" ? " is-queued" : ""}`}>
          <div class="who">
            {entry.author ? <span class="author">{entry.author}</span> : "You"}
            {entry.state === "queued" ? <span class="pill pill-queued">Queued</span> : null}
            {entry.state === "failed" ? <span class="pill pill-failed">Not sent</span> : null}
          </div>
          {entry.blocks.map((b, i) => (
            <Block key={i} block={b} />
          ))}
          {entry.error ? <p class="msg-error">{entry.error}</p> : null}
        </div>
      );
    case "agent":
      return (
        <div class="msg msg-agent">
          <div class="who">hermes</div>
          <Markdown text={entry.text} />
        </div>
      );
    case "thought":
      return (
        <details class="thought">
          <summary>Thought</summary>
          <Markdown text={entry.text} />
        </details>
      );
    case "tool": {
      const call = transcript.tools[entry.key];
      return call ? <ToolCallCard call={call} transcript={transcript} /> : null;
    }
    case "notice":
      return <p class={`notice notice-${entry.tone}`}>{entry.text}</p>;
  }
}

export function TranscriptView({ transcript }: { transcript: Transcript }) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // Follow the stream while the reader is at the bottom; leave them be when they scrolled up.
  useEffect(() => {
    if (box.current && pinned.current) box.current.scrollTop = box.current.scrollHeight;
  });
  const onScroll = () => {
    const el = box.current;
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };
  return (
    <div class="transcript" role="log" aria-label="Conversation" ref={box} onScroll={onScroll} tabIndex={0}>
      {transcript.entries.length === 0 && transcript.queued.length === 0 ? <p class="empty">No messages yet. Ask hermes something below.</p> : null}
      {transcript.entries.map((entry) => (
        <EntryView key={entry.key} entry={entry} transcript={transcript} />
      ))}
      {transcript.queued.map((q) => (
        <EntryView key={q.key} entry={{ kind: "user", key: q.key, blocks: q.blocks, state: "queued" }} transcript={transcript} />
      ))}
    </div>
  );
}
