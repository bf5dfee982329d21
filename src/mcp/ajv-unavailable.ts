/**
 * What the Worker bundle gets for `ajv` and `ajv-formats` (wrangler.toml's
 * `[alias]`). The MCP SDK's `Client` imports its default validator, built on
 * ajv, even when a caller passes its own: 290 KiB of the bundle (ajv,
 * ajv-formats, fast-uri), and useless here anyway, because ajv compiles
 * schemas with `new Function`, which workerd forbids. Every `Client` the
 * service makes passes `CfWorkerJsonSchemaValidator` (`http-link.ts`), so
 * the SDK never calls this; if it ever does, the error says why.
 * @module
 */
export default function ajvUnavailable(): never {
  throw new Error(
    "ajv is not bundled into hermes-edge (wrangler.toml [alias]): pass the MCP SDK's CfWorkerJsonSchemaValidator as the Client's jsonSchemaValidator",
  );
}
