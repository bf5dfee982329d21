/**
 * Object schemas for what another hermes-edge peer sends. A newer peer may add
 * fields, and that must never make an older one stop recognising what it
 * knows, so unknown keys are accepted and kept.
 * @module
 */
import * as z from "zod";

/**
 * `z.looseObject(shape)`, typed with only the known fields: code may not rely
 * on the extra keys, and object literals built against the type still get
 * excess-property checks (an index signature would wave typos through).
 */
export function loose<T extends z.ZodRawShape>(shape: T): z.ZodObject<T> {
  return z.looseObject(shape) as unknown as z.ZodObject<T>;
}
