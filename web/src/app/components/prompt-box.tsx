/**
 * The prompt box: a textarea ("Prompt"), "Send" and "Cancel". Enter sends,
 * Shift+Enter starts a new line. A `/` at the start offers the session's
 * slash commands (arrows to choose, Tab or Enter to complete): the textarea
 * (still a textbox: "Prompt" is the name clients and checks find it by) owns
 * that list through aria-controls and aria-activedescendant, so a screen
 * reader announces the option chosen while focus stays in the text. Pasted, dropped or attached images go
 * with the prompt as image blocks; a large pasted or dropped text is kept beside the box (see
 * {@link incomingTransfer}) and goes as its own text block. An Enter still answering a dialog (held, or pressed twice) is
 * ignored: see {@link DialogEnterGuard}.
 * @module
 */
import type { AvailableCommand, ContentBlock } from "@agentclientprotocol/sdk";
import { useEffect, useRef, useState } from "preact/hooks";
import { DialogEnterGuard } from "../state/dialog-enter-guard.js";
import { describePaste, incomingTransfer, promptBlocks, type IncomingData, type PastedText } from "../state/pasted-text.js";
import { matchingCommands } from "../state/slash-completion.js";

const COMMANDS_ID = "slash-commands";
const optionId = (index: number) => `slash-command-${index}`;

interface Attachment {
  readonly name: string;
  readonly mimeType: string;
  readonly data: string;
}

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export function PromptBox(props: {
  commands: readonly AvailableCommand[];
  running: boolean;
  canAttachImages: boolean;
  onSend: (blocks: ContentBlock[]) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState("");
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [pastes, setPastes] = useState<PastedText[]>([]);
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  /** Text dragged from within the box itself: dropping it moves it inside the box, so the browser keeps that drop. */
  const draggingOwnText = useRef(false);
  const [enterGuard] = useState(() => new DialogEnterGuard());
  useEffect(() => {
    const note = (event: KeyboardEvent) => enterGuard.sawKeydown(event, event.target instanceof Element && event.target.closest("dialog") !== null);
    document.addEventListener("keydown", note, true);
    return () => document.removeEventListener("keydown", note, true);
  }, [enterGuard]);
  const suggestions = dismissed ? [] : matchingCommands(text, props.commands);
  const expanded = suggestions.length > 0;
  const active = Math.min(selected, suggestions.length - 1);

  const attach = async (files: Iterable<File>) => {
    const images = [...files].filter((f) => f.type.startsWith("image/"));
    const read = await Promise.all(images.map(async (f) => ({ name: f.name || "pasted image", mimeType: f.type, data: await readAsBase64(f) })));
    setAttachments((current) => [...current, ...read]);
  };

  /** A paste or a drop: see {@link incomingTransfer}. */
  const takeIncoming = (event: Event, data: IncomingData<File> | null) => {
    const incoming = incomingTransfer((event.target as HTMLTextAreaElement).value, data, props.canAttachImages);
    if (incoming.kind === "insert") return;
    event.preventDefault();
    if (incoming.kind === "attach") void attach(incoming.files);
    else setPastes((all) => [...all, incoming.paste]);
  };

  const send = () => {
    const blocks: ContentBlock[] = promptBlocks(text, pastes, attachments);
    if (blocks.length === 0) return;
    props.onSend(blocks);
    setText("");
    setAttachments([]);
    setPastes([]);
  };

  const complete = (command: AvailableCommand) => {
    setText(`/${command.name} `);
    setSelected(0);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (enterGuard.swallows(event)) {
      event.preventDefault();
      return;
    }
    if (suggestions.length > 0) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setSelected((i) => (i + step + suggestions.length) % suggestions.length);
        return;
      }
      if (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey)) {
        event.preventDefault();
        complete(suggestions[active]!);
        return;
      }
      if (event.key === "Escape") {
        setDismissed(true);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form
      class="prompt-box"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      {expanded ? (
        <ul class="commands" role="listbox" id={COMMANDS_ID} aria-label="Slash commands">
          {suggestions.map((c, i) => (
            <li key={c.name} id={optionId(i)} role="option" aria-selected={i === active} onMouseDown={(e) => (e.preventDefault(), complete(c))}>
              <span class="command-name">/{c.name}</span> <span class="muted">{c.description}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {attachments.length > 0 ? (
        <ul class="attachments" aria-label="Attached images">
          {attachments.map((a, i) => (
            <li key={i}>
              <img src={`data:${a.mimeType};base64,${a.data}`} alt={a.name} />
              <button type="button" aria-label={`Remove ${a.name}`} onClick={() => setAttachments((all) => all.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {pastes.length > 0 ? (
        <ul class="pastes" aria-label="Pasted texts">
          {pastes.map((p, i) => (
            <li key={i}>
              <span>{describePaste(p)}</span>
              <code class="paste-start">{p.text.slice(0, 80)}</code>
              <button type="button" class="icon" aria-label={`Remove pasted text ${i + 1}`} onClick={() => setPastes((all) => all.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <label for="prompt" class="visually-hidden">
        Prompt
      </label>
      <textarea
        id="prompt"
        rows={3}
        placeholder={props.running ? "A turn is running: what you send now waits its turn" : "Ask hermes… (/ for commands, Shift+Enter for a new line)"}
        value={text}
        aria-autocomplete="list"
        aria-controls={expanded ? COMMANDS_ID : undefined}
        aria-activedescendant={expanded ? optionId(active) : undefined}
        onInput={(e) => {
          setText((e.target as HTMLTextAreaElement).value);
          setDismissed(false);
          setSelected(0);
        }}
        onKeyDown={onKeyDown}
        onPaste={(e) => takeIncoming(e, e.clipboardData)}
        onDragStart={() => (draggingOwnText.current = true)}
        onDragEnd={() => (draggingOwnText.current = false)}
        onDrop={(e) => {
          if (!draggingOwnText.current) takeIncoming(e, e.dataTransfer);
        }}
      />
      <div class="prompt-actions">
        {props.canAttachImages ? (
          <>
            <button type="button" class="secondary" onClick={() => fileInput.current?.click()}>
              Attach image
            </button>
            <input
              ref={fileInput}
              type="file"
              accept="image/*"
              multiple
              hidden
              onChange={(e) => {
                const input = e.target as HTMLInputElement;
                if (input.files) void attach(input.files);
                input.value = "";
              }}
            />
          </>
        ) : null}
        <span class="spacer" />
        <button type="button" class="secondary" onClick={props.onCancel} disabled={!props.running}>
          Cancel
        </button>
        <button type="submit">Send</button>
      </div>
    </form>
  );
}
