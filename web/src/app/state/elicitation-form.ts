/**
 * The form an `elicitation/create` request (form mode) asks for, as plain
 * data: one field per property of the requested schema, and the answer's
 * `content` built from what the user entered. Kept apart from the dialog so
 * it can be tested without a page.
 * @module
 */
import type {
  BooleanPropertySchema,
  ElicitationContentValue,
  ElicitationPropertySchema,
  ElicitationSchema,
  EnumOption,
  MultiSelectPropertySchema,
  NumberPropertySchema,
  StringPropertySchema,
} from "@agentclientprotocol/sdk";

export interface Choice {
  readonly value: string;
  readonly label: string;
}

interface FieldBase {
  readonly name: string;
  readonly label: string;
  readonly description: string | null;
  readonly required: boolean;
}

export type FormField =
  | (FieldBase & { kind: "text"; minLength?: number; maxLength?: number; pattern?: string; inputType: "text" | "email" | "url" | "date"; initial: string })
  | (FieldBase & { kind: "choice"; choices: readonly Choice[]; initial: string })
  | (FieldBase & { kind: "multi"; choices: readonly Choice[]; initial: readonly string[] })
  | (FieldBase & { kind: "boolean"; initial: boolean })
  | (FieldBase & { kind: "number"; integer: boolean; minimum?: number; maximum?: number; initial: string })
  /** A property type this client does not know: shown, never answered. */
  | (FieldBase & { kind: "unsupported"; type: string });

/** What the user has entered, by property name, as the dialog's controls hold it. */
export type FormValues = Record<string, string | boolean | readonly string[]>;

// A date-time stays a text input: datetime-local has no time zone, which RFC 3339 needs.
const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "text" } as const;

function optional<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

function choicesOf(enumValues: readonly string[] | null | undefined, oneOf: readonly EnumOption[] | null | undefined): Choice[] | null {
  if (oneOf?.length) return oneOf.map((o) => ({ value: o.const, label: o.title || o.const }));
  if (enumValues?.length) return enumValues.map((v) => ({ value: v, label: v }));
  return null;
}

function fieldOf(name: string, schema: ElicitationPropertySchema, required: boolean): FormField {
  const base: FieldBase = {
    name,
    label: typeof schema.title === "string" && schema.title ? schema.title : name,
    description: typeof schema.description === "string" && schema.description ? schema.description : null,
    required,
  };
  switch (schema.type) {
    case "string": {
      const s = schema as StringPropertySchema;
      const choices = choicesOf(s.enum, s.oneOf);
      if (choices) return { ...base, kind: "choice", choices, initial: s.default ?? "" };
      return {
        ...base,
        kind: "text",
        inputType: s.format ? INPUT_TYPES[s.format] : "text",
        minLength: optional(s.minLength),
        maxLength: optional(s.maxLength),
        pattern: optional(s.pattern),
        initial: s.default ?? "",
      };
    }
    case "number":
    case "integer": {
      const s = schema as NumberPropertySchema;
      const initial = typeof s.default === "number" ? String(s.default) : "";
      return { ...base, kind: "number", integer: schema.type === "integer", minimum: optional(s.minimum), maximum: optional(s.maximum), initial };
    }
    case "boolean": {
      const s = schema as BooleanPropertySchema;
      return { ...base, kind: "boolean", initial: s.default === true };
    }
    case "array": {
      const s = schema as MultiSelectPropertySchema;
      const items = s.items as { enum?: string[]; anyOf?: EnumOption[] };
      const choices = choicesOf(items.enum, items.anyOf);
      if (choices) return { ...base, kind: "multi", choices, initial: s.default ?? [] };
      return { ...base, kind: "unsupported", type: "array" };
    }
    default:
      return { ...base, kind: "unsupported", type: String(schema.type) };
  }
}

export function formFields(schema: ElicitationSchema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => fieldOf(name, property, required.has(name)));
}

export function initialValues(fields: readonly FormField[]): FormValues {
  const values: FormValues = {};
  for (const f of fields) if (f.kind !== "unsupported") values[f.name] = f.initial;
  return values;
}

/**
 * The validity message of a required text field whose value is only spaces
 * (native `required` counts them as an answer; `formContent` would drop them
 * and send none), or "" when the value is fine.
 */
export function blankAnswerMessage(field: FormField, value: FormValues[string] | undefined): string {
  return field.kind === "text" && field.required && typeof value === "string" && value !== "" && !value.trim() ? "Enter an answer, not only spaces." : "";
}

/**
 * The `content` of an accept answer: typed as the schema asks, and without
 * the optional fields the user left empty (an empty string is not an answer).
 * The dialog's native constraint validation has already checked required
 * fields, lengths, patterns and ranges.
 */
export function formContent(fields: readonly FormField[], values: FormValues): Record<string, ElicitationContentValue> {
  const content: Record<string, ElicitationContentValue> = {};
  for (const f of fields) {
    const value = values[f.name];
    if (f.kind === "boolean") content[f.name] = value === true;
    else if (f.kind === "multi") {
      if (Array.isArray(value) && (value.length || f.required)) content[f.name] = [...(value as readonly string[])];
    } else if (f.kind === "number") {
      if (typeof value === "string" && value.trim() && Number.isFinite(Number(value))) content[f.name] = Number(value);
    } else if (f.kind !== "unsupported" && typeof value === "string" && value.trim()) content[f.name] = f.kind === "text" ? value.trim() : value;
  }
  return content;
}
