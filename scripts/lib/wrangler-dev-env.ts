/**
 * The environment `npm start` gives `wrangler dev`: quiet but not mute. Each
 * default gives way to a value the caller already set.
 * @module
 */

export function wranglerDevEnv(parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...parent,
    WRANGLER_SEND_METRICS: "false",
    // No DevTools inspector: with it, wrangler's relay opens a socket to its node process for each
    // read of the model's streamed answer, and a long fast answer exhausts the file descriptors
    // (issue 26; the committed .env says the same for plain `wrangler dev`). wrangler has no flag for
    // this; it skips the inspector when this variable is set. HERMES_INSPECTOR=1 keeps it, on a port
    // that follows PORT (see wranglerDevArgs).
    ...(parent.HERMES_INSPECTOR === "1" ? {} : { VSCODE_INSPECTOR_OPTIONS: parent.VSCODE_INSPECTOR_OPTIONS ?? "{}" }),
    // miniflare otherwise fetches workers.cloudflare.com/cf.json at every start and, offline, prints
    // a stack trace; the placeholder `Request.cf` it falls back to is what a local run gets anyway.
    CLOUDFLARE_CF_FETCH_ENABLED: parent.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    // "info" drops wrangler's bindings table, secrets notice and custom-build chatter (the banner
    // says what matters); warnings, errors, request lines and the Worker's console.warn/error still show.
    // The Worker's console.log is at wrangler's "log" level: WRANGLER_LOG=log npm start shows everything.
    WRANGLER_LOG: parent.WRANGLER_LOG ?? "info",
  };
}

/** `npm start`'s default PORT, whose inspector keeps DevTools' usual port. */
const DEFAULT_PORT = 8787;
const DEFAULT_INSPECTOR_PORT = 9229;
const FIRST_UNPRIVILEGED_PORT = 1024;
const UNPRIVILEGED_PORTS = 65536 - FIRST_UNPRIVILEGED_PORT;

/**
 * The inspector's port for the service on `port`: 9229 (where DevTools looks first) for 8787, and
 * shifted as PORT is, so that two clones on two PORTs never ask for the same inspector port (left
 * to itself wrangler takes 9229 whatever PORT says). Wraps around within 1024-65535, so every
 * PORT gets a usable port of its own.
 */
export function inspectorPort(port: number): number {
  const offset = DEFAULT_INSPECTOR_PORT - FIRST_UNPRIVILEGED_PORT + (port - DEFAULT_PORT);
  return FIRST_UNPRIVILEGED_PORT + (((offset % UNPRIVILEGED_PORTS) + UNPRIVILEGED_PORTS) % UNPRIVILEGED_PORTS);
}

/**
 * Arguments `npm start` adds to `wrangler dev` for the service on `port`. With HERMES_INSPECTOR=1,
 * `--inspector-port` (see {@link inspectorPort}) and `--env-file .dev.vars`: wrangler then fills
 * its own environment from .dev.vars instead of .env, whose VSCODE_INSPECTOR_OPTIONS would turn the
 * inspector off again (an empty value in the environment does not override a file's). The Worker's
 * secrets still come from .dev.vars: wrangler reads them from the --env-file when one is given.
 */
export function wranglerDevArgs(parent: NodeJS.ProcessEnv, port: number): string[] {
  return parent.HERMES_INSPECTOR === "1" ? ["--env-file", ".dev.vars", "--inspector-port", String(inspectorPort(port))] : [];
}
