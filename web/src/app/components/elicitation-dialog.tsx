/**
 * The agent asks the user a question (`elicitation/create`, form mode): a
 * modal dialog titled with the question, one labelled control per field of
 * the requested schema, and "Submit", "Decline", "Cancel". The browser's own
 * constraint validation checks required fields (not only spaces), lengths and ranges.
 * @module
 */
import { useMemo, useRef, useState } from "preact/hooks";
import type { ConnectionStatus } from "../../client/index.js";
import type { ElicitationAsk } from "../state/app-state.js";
import { DialogConnectionStatus } from "./dialog-connection-status.js";
import { useModalDialog } from "./use-modal-dialog.js";
import { blankAnswerMessage, formContent, formFields, initialValues, type FormField, type FormValues } from "../state/elicitation-form.js";

type Set = (name: string, value: FormValues[string]) => void;

function Label({ field }: { field: FormField }) {
  return (
    <>
      {field.label}
      {field.required ? <span class="required-mark" aria-hidden="true"> *</span> : null}
    </>
  );
}

function Hint({ field, id }: { field: FormField; id: string }) {
  return field.description ? (
    <span id={id} class="muted small field-hint">
      {field.description}
    </span>
  ) : null;
}

function Field({ field, id, values, set }: { field: FormField; id: string; values: FormValues; set: Set }) {
  const hintId = field.description ? `${id}-hint` : undefined;
  const value = values[field.name];
  switch (field.kind) {
    case "choice":
    case "multi": {
      const picked = field.kind === "multi" ? ((value as readonly string[]) ?? []) : [value as string];
      return (
        <fieldset class="field choice-group" aria-describedby={hintId} role={field.kind === "choice" ? "radiogroup" : undefined} aria-required={field.required || undefined}>
          <legend>
            <Label field={field} />
          </legend>
          <Hint field={field} id={hintId ?? ""} />
          {field.choices.map((c) => (
            <label key={c.value} class="check">
              <input
                type={field.kind === "choice" ? "radio" : "checkbox"}
                name={`${id}-${field.name}`}
                value={c.value}
                checked={picked.includes(c.value)}
                required={field.kind === "choice" && field.required}
                onChange={(e) => {
                  const on = (e.currentTarget as HTMLInputElement).checked;
                  if (field.kind === "choice") set(field.name, c.value);
                  else set(field.name, on ? [...picked, c.value] : picked.filter((v) => v !== c.value));
                }}
              />
              {c.label}
            </label>
          ))}
        </fieldset>
      );
    }
    case "boolean":
      return (
        <div class="field">
          <label class="check">
            <input type="checkbox" aria-describedby={hintId} checked={value === true} onChange={(e) => set(field.name, (e.currentTarget as HTMLInputElement).checked)} />
            <Label field={field} />
          </label>
          <Hint field={field} id={hintId ?? ""} />
        </div>
      );
    case "unsupported":
      return (
        <p class="field muted small">
          {field.label}: this browser cannot answer a “{field.type}” field.
        </p>
      );
    default: {
      const input = (e: Event) => set(field.name, (e.currentTarget as HTMLInputElement).value);
      return (
        <div class="field">
          <label for={`${id}-${field.name}`}>
            <Label field={field} />
          </label>
          {field.kind === "number" ? (
            <input
              id={`${id}-${field.name}`}
              type="number"
              step={field.integer ? 1 : "any"}
              min={field.minimum}
              max={field.maximum}
              required={field.required}
              aria-describedby={hintId}
              value={value as string}
              onInput={input}
            />
          ) : (
            <input
              id={`${id}-${field.name}`}
              // One of text/email/url/date; preact's typings want a literal.
              type={field.inputType as "text"}
              ref={(el) => el?.setCustomValidity(blankAnswerMessage(field, value))}
              minLength={field.minLength}
              maxLength={field.maxLength}
              pattern={field.pattern}
              required={field.required}
              aria-describedby={hintId}
              value={value as string}
              onInput={input}
            />
          )}
          <Hint field={field} id={hintId ?? ""} />
        </div>
      );
    }
  }
}

export function ElicitationDialog({ ask, sessionTitle, status }: { ask: ElicitationAsk; sessionTitle: string | null; status: ConnectionStatus | null }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const fields = useMemo(() => formFields(ask.params.requestedSchema), [ask.id]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  // The heading, not the first field (the dialog's default): what the user was typing into
  // the prompt box must not land in an answer, and its Enter must not submit one.
  useModalDialog(dialog, heading, ask.id);
  const id = `elicitation-${ask.id}`;
  const set: Set = (name, value) => setValues((v) => ({ ...v, [name]: value }));
  return (
    <dialog
      ref={dialog}
      class="permission elicitation"
      aria-labelledby={`${id}-title`}
      // Escape is the user dismissing the question: say so instead of closing silently.
      onCancel={(e) => {
        e.preventDefault();
        ask.answer({ action: "cancel" });
      }}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          ask.answer({ action: "accept", content: formContent(fields, values) });
        }}
      >
        <p class="eyebrow">Question from the agent</p>
        <h2 id={`${id}-title`} ref={heading} tabIndex={-1}>
          {ask.params.message}
        </h2>
        {sessionTitle ? <p class="muted small">In session “{sessionTitle}”</p> : null}
        <div class="permission-body elicitation-fields">
          {fields.map((f) => (
            <Field key={f.name} field={f} id={id} values={values} set={set} />
          ))}
          {fields.some((f) => f.required) ? (
            <p class="muted small" aria-hidden="true">
              * required
            </p>
          ) : null}
        </div>
        <DialogConnectionStatus status={status} />
        <div class="permission-actions">
          <button type="submit">Submit</button>
          <button type="button" class="danger" onClick={() => ask.answer({ action: "decline" })}>
            Decline
          </button>
          <button type="button" class="secondary" onClick={() => ask.answer({ action: "cancel" })}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
