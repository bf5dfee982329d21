/**
 * The URL and token the bridge dials with. They can change while the proxy
 * runs: `logout` forgets the saved token, and `authenticate` after it reads the
 * configuration again (the editor's terminal auth method has just re-run
 * `--setup`).
 * @module
 */
import { forgetSavedToken, type ResolvedConfig } from "./config.js";

export class Credentials {
  readonly #resolve: () => ResolvedConfig;
  #current: ResolvedConfig;

  /** @param resolve flags > env > saved config > default, read afresh on each call. */
  constructor(resolve: () => ResolvedConfig, current: ResolvedConfig = resolve()) {
    this.#resolve = resolve;
    this.#current = current;
  }

  get current(): ResolvedConfig {
    return this.#current;
  }

  /** Reads flags, env and the saved config again. @throws ConfigError for an invalid saved config. */
  reload(): ResolvedConfig {
    this.#current = this.#resolve();
    return this.#current;
  }

  /** Removes the token `--setup` saved; a token from --token or HERMES_EDGE_TOKEN is not the proxy's to forget. */
  forgetSaved(): boolean {
    return forgetSavedToken(this.#current.configPath);
  }
}
