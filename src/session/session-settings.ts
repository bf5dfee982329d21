/**
 * Changing mode, model or reasoning effort, from any of the ways a client can
 * ask (`session/set_mode`, `session/set_config_option`, legacy
 * `session/set_model`, `/mode`, `/model`): one path, so the mode option and
 * the current mode never disagree and every change is announced.
 */
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import { applyConfigOption, configOptions, type SessionSettings } from "./config-options.js";
import { modeState } from "./modes.js";
import type { SessionRecord } from "./session-record.js";
import type { UpdateLog } from "./update-log.js";

export class SettingsController {
  constructor(
    private readonly log: UpdateLog,
    /** Read on each use: proxy-hosted upstream models come and go with attachments. */
    private readonly models: () => string[],
    private readonly onChange: (record: SessionRecord) => void,
  ) {}

  options(): SessionConfigOption[] {
    return configOptions(settingsOf(this.log.store.record()!), this.models());
  }

  modes(): SessionModeState {
    return modeState(this.log.store.record()!.mode);
  }

  /** Applies one change (throws -32602 on a bad value) and emits the updates it causes. */
  set(configId: string, value: unknown): SessionConfigOption[] {
    const record = this.log.store.record()!;
    const next = applyConfigOption(settingsOf(record), this.models(), configId, value);
    const updated = this.log.store.updateRecord(next);
    if (next.mode !== record.mode) this.log.emit({ sessionUpdate: "current_mode_update", currentModeId: next.mode });
    const options = this.options();
    this.log.emit({ sessionUpdate: "config_option_update", configOptions: options });
    this.onChange(updated);
    return options;
  }

  /** What `session/new`, `load` and `resume` return besides the id. */
  sessionState(): { modes: SessionModeState; configOptions: SessionConfigOption[] } {
    return { modes: this.modes(), configOptions: this.options() };
  }
}

function settingsOf(record: SessionRecord): SessionSettings {
  return { mode: record.mode, model: record.model, reasoningEffort: record.reasoningEffort };
}
