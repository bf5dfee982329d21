/**
 * Keys in a model's tool arguments that the tool's JSON Schema does not
 * declare, where the schema says `additionalProperties: false`. A model that
 * writes `contents` for `content`, or misspells an option, must hear so: a
 * schema that drops the key silently runs a call that ignores what it meant.
 *
 * Walks what our own tools' schemas (derived from zod) contain: objects,
 * arrays, tuples and `anyOf`/`oneOf` unions. Anything else (`$ref`, `allOf`,
 * `patternProperties`) is not judged here; it is left to the schema's own check.
 */

type JsonSchema = Record<string, unknown>;

/** Unknown keys found at one place in the arguments, with the keys that place accepts. */
export interface UnknownKeys {
  /** Where, as zod writes issue paths (`todos.0`); empty at the top level. */
  path: string;
  keys: string[];
  accepted: string[];
}

export function unknownArguments(schema: unknown, value: unknown, path: (string | number)[] = []): UnknownKeys[] {
  if (!isRecord(schema)) return [];
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return bestBranch(union, value, path);
  if (Array.isArray(value)) return arrayItems(schema, value, path);
  if (isRecord(value) && (isRecord(schema.properties) || isRecord(schema.additionalProperties))) {
    return objectKeys(schema, isRecord(schema.properties) ? schema.properties : {}, value, path);
  }
  return [];
}

function objectKeys(schema: JsonSchema, properties: JsonSchema, value: JsonSchema, path: (string | number)[]): UnknownKeys[] {
  const found: UnknownKeys[] = [];
  const unknown: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) found.push(...unknownArguments(properties[key], child, [...path, key]));
    else if (schema.additionalProperties === false && schema.patternProperties === undefined) unknown.push(key);
    else found.push(...unknownArguments(schema.additionalProperties, child, [...path, key]));
  }
  if (unknown.length > 0) found.unshift({ path: path.join("."), keys: unknown, accepted: Object.keys(properties) });
  return found;
}

function arrayItems(schema: JsonSchema, value: unknown[], path: (string | number)[]): UnknownKeys[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
  return value.flatMap((item, i) => unknownArguments(i < prefix.length ? prefix[i] : schema.items, item, [...path, i]));
}

/**
 * A union accepts the value's keys if one of its branches does; otherwise the
 * branch closest to the value (fewest unknown keys) says what was meant.
 * Branches of another JSON type (`null` in a nullable object) have nothing to say.
 */
function bestBranch(branches: unknown[], value: unknown, path: (string | number)[]): UnknownKeys[] {
  let best: UnknownKeys[] | undefined;
  for (const branch of branches) {
    if (!sameKind(branch, value)) continue;
    const found = unknownArguments(branch, value, path);
    if (found.length === 0) return [];
    if (!best || count(found) < count(best)) best = found;
  }
  return best ?? [];
}

function sameKind(schema: unknown, value: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (Array.isArray(value)) return schema.type === "array" || schema.items !== undefined || schema.prefixItems !== undefined;
  if (isRecord(value)) return schema.type === "object" || schema.properties !== undefined || schema.anyOf !== undefined || schema.oneOf !== undefined;
  return false;
}

const count = (found: UnknownKeys[]) => found.reduce((n, f) => n + f.keys.length, 0);

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** For the model: each place's unknown keys and what it accepts instead. */
export function describeUnknownKeys(found: UnknownKeys[]): string[] {
  return found.map(({ path, keys, accepted }) => {
    const what = `unknown ${keys.length === 1 ? "key" : "keys"} ${keys.map((k) => `"${k}"`).join(", ")}`;
    const where = path ? ` in ${path}` : "";
    const allowed = accepted.length > 0 ? `accepted keys: ${accepted.join(", ")}` : "no keys are accepted";
    return `${what}${where} (${allowed})`;
  });
}
