/**
 * The agent asks before it edits or runs something: a modal dialog showing
 * what would happen (the diff, the command) with one button per option,
 * named as the service names them ("Allow once", "Deny", …). Focus goes to
 * its heading, not to a button: an Enter the user meant for the prompt box
 * must not approve an edit or a command. Escape does not close it either.
 * @module
 */
import { useRef } from "preact/hooks";
import type { ConnectionStatus } from "../../client/index.js";
import type { PermissionAsk } from "../state/app-state.js";
import { DialogConnectionStatus } from "./dialog-connection-status.js";
import { ToolContent } from "./tool-call-card.js";
import { useModalDialog } from "./use-modal-dialog.js";

export function PermissionDialog({ ask, sessionTitle, status }: { ask: PermissionAsk; sessionTitle: string | null; status: ConnectionStatus | null }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useModalDialog(dialog, heading, ask.id);
  const { toolCall, options } = ask.params;
  const title = toolCall.title ?? "The agent asks for permission";
  return (
    <dialog
      ref={dialog}
      class="permission"
      aria-labelledby={`permission-title-${ask.id}`}
      aria-describedby={`permission-body-${ask.id}`}
      // Escape must not dismiss it silently: the agent waits for an answer.
      onCancel={(e) => e.preventDefault()}
      // Chromium closes it anyway on a repeated Escape (a page may not trap its user): open it again.
      // Once answered it closes while being taken out of the page, and stays closed.
      onClose={(e) => {
        const el = e.currentTarget as HTMLDialogElement;
        if (el.isConnected) el.showModal();
      }}
    >
      <p class="eyebrow">Permission needed</p>
      <h2 id={`permission-title-${ask.id}`} ref={heading} tabIndex={-1} autofocus>
        {title}
      </h2>
      {sessionTitle ? <p class="muted small">In session “{sessionTitle}”</p> : null}
      <div id={`permission-body-${ask.id}`} class="permission-body">
        {(toolCall.content ?? []).map((item, i) => (
          <ToolContent key={i} item={item} />
        ))}
      </div>
      <DialogConnectionStatus status={status} />
      <div class="permission-actions">
        {options.map((option, i) => (
          <button
            key={option.optionId}
            type="button"
            class={option.kind.startsWith("reject") ? "danger" : i === 0 ? "" : "secondary"}
            onClick={() => ask.answer(option.optionId)}
          >
            {option.name}
          </button>
        ))}
      </div>
    </dialog>
  );
}
