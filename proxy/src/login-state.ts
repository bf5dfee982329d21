/**
 * The proxy's side of ACP `logout` and of the `authenticate` that follows it.
 * The proxy owns the credential (the token on the WebSocket upgrade), so it
 * answers these itself: `logout` forgets the saved token; until the editor
 * authenticates again (its terminal auth method re-runs `--setup` first),
 * `initialize` is answered here with the auth methods and every other
 * request gets -32000. A first run with no token at all starts that way.
 * @module
 */
import { AGENT_METHODS, ErrorCode, type ErrorResponse, type IncomingRequest, type RequestId } from "@hermes-edge/protocol";
import type { ConnectFailure } from "./connect.js";
import type { ResolvedConfig } from "./config.js";
import type { Credentials } from "./credentials.js";
import type { EditorOutput } from "./editor-output.js";
import { loggedOutError, logoutFailedError, notConfiguredError, startupError, unauthorized, unusableConfigError } from "./failures.js";
import type { Logger } from "./log.js";

/** What the bridge does with an editor request: its own `logout`/`authenticate`/`initialize`, already answered, or forward (undefined). */
export type LocalHandling = "logout" | "authenticate" | "initialize" | "answered" | undefined;

export class LoginState {
  readonly #credentials: Credentials;
  readonly #editor: EditorOutput;
  readonly #log: Logger;
  #authenticating: RequestId | undefined;
  /** No token was ever configured (first run) rather than `logout`: what the refused requests are told. */
  #neverConfigured = false;

  constructor(credentials: Credentials, editor: EditorOutput, log: Logger) {
    this.#credentials = credentials;
    this.#editor = editor;
    this.#log = log;
  }

  /** An `authenticate` after `logout` waits for its connection. */
  get authenticating(): boolean {
    return this.#authenticating !== undefined;
  }

  answerLocally(message: IncomingRequest, loggedOut: boolean): LocalHandling {
    if (message.method === AGENT_METHODS.logout) return "logout";
    if (!loggedOut) return undefined;
    if (message.method === AGENT_METHODS.authenticate) return "authenticate";
    // Logged out (or not configured yet), the editor still learns the auth methods; everything else waits for `authenticate`.
    if (message.method === AGENT_METHODS.initialize) return "initialize";
    this.#editor.answer([{ id: message.id, error: this.#neverConfigured ? notConfiguredError() : loggedOutError() }]);
    return "answered";
  }

  /** The proxy starts logged out: no token anywhere yet. */
  notConfigured(): void {
    this.#neverConfigured = true;
  }

  /** Forgets the saved token. `failPending`: what the requests still waiting get. */
  logout(): { failPending: ErrorResponse } | { error: ErrorResponse } {
    this.#neverConfigured = false;
    try {
      const forgot = this.#credentials.forgetSaved();
      const { configPath, tokenSource } = this.#credentials.reload();
      this.#log.info(
        `logout: ${forgot ? `removed the saved token from ${configPath}` : "no saved token to remove"}` +
          (tokenSource === "flag" || tokenSource === "env" ? `; the token from ${tokenSource === "flag" ? "--token" : "HERMES_EDGE_TOKEN"} stays` : "") +
          "; closing the service connection",
      );
    } catch (err) {
      return { error: logoutFailedError(err) };
    }
    if (this.#authenticating !== undefined) this.#editor.answer([{ id: this.#authenticating, error: loggedOutError() }]);
    this.#authenticating = undefined;
    return { failPending: loggedOutError() };
  }

  /** Reads the credentials again for an `authenticate`; false (and answered) when the saved config is unusable. */
  startAuthenticate(id: RequestId): boolean {
    try {
      const { url, tokenSource } = this.#credentials.reload();
      this.#log.info(`authenticate: connecting to ${url} with the token from ${tokenSource}`);
    } catch (err) {
      this.#editor.answer([{ id, error: unusableConfigError(err) }]);
      return false;
    }
    this.#authenticating = id;
    return true;
  }

  /** The connection is open: the pending `authenticate` succeeded. */
  authenticated(): void {
    if (this.#authenticating === undefined) return;
    this.#editor.answer([{ id: this.#authenticating, result: {} }]);
    this.#authenticating = undefined;
  }

  /** The connection failed: the pending `authenticate` gets why, and the proxy stays logged out. */
  authenticateFailed(failure: ConnectFailure, config: ResolvedConfig): void {
    if (this.#authenticating === undefined) return;
    const error =
      failure.kind === "unauthorized"
        ? unauthorized(failure, config).error
        : { ...startupError(config.url, failure, 0), code: ErrorCode.authRequired };
    this.#log.warn(`authenticate failed: ${error.message}`);
    this.#editor.answer([{ id: this.#authenticating, error }]);
    this.#authenticating = undefined;
  }
}
