/**
 * What a tenant may be called, wherever a name enters: `HERMES_EDGE_TOKENS`,
 * managed keys, the admin API's paths. A name that fits in a URL path segment
 * and a log line, so every tenant that can sign in can also be administered.
 */
import * as z from "zod";

export const zTenant = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, "letters, digits and . _ @ - only, starting with a letter or digit");
