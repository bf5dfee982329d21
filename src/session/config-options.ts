/**
 * The session's config options as ACP `SessionConfigOption`s: mode, model and
 * reasoning effort. `session/set_mode` and the mode option are one setting.
 */
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { invalidParams } from "@hermes-edge/protocol";
import { isModeId, MODES } from "./modes.js";

export const REASONING_EFFORTS = ["low", "medium", "high"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
export const DEFAULT_REASONING_EFFORT: ReasoningEffort = "medium";

export interface SessionSettings {
  mode: string;
  model: string;
  reasoningEffort: ReasoningEffort;
}

export function configOptions(settings: SessionSettings, models: string[]): SessionConfigOption[] {
  return [
    {
      id: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: settings.mode,
      options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: settings.model,
      options: (models.includes(settings.model) ? models : [settings.model, ...models]).map((m) => ({ value: m, name: m })),
    },
    {
      id: "reasoning_effort",
      name: "Reasoning effort",
      category: "thought_level",
      type: "select",
      currentValue: settings.reasoningEffort,
      options: REASONING_EFFORTS.map((e) => ({ value: e, name: e[0]!.toUpperCase() + e.slice(1) })),
    },
  ];
}

/** Applies one option; throws -32602 naming the accepted values when the value is not one of them. */
export function applyConfigOption(settings: SessionSettings, models: string[], configId: string, value: unknown): SessionSettings {
  const reject = (allowed: readonly string[]) =>
    invalidParams([{ path: ["value"], message: `must be one of: ${allowed.join(", ")}` }], `Invalid value for ${configId}`);
  if (typeof value !== "string") throw reject([]);
  switch (configId) {
    case "mode":
      if (!isModeId(value)) throw reject(MODES.map((m) => m.id));
      return { ...settings, mode: value };
    case "model":
      if (!models.includes(value)) throw reject(models);
      return { ...settings, model: value };
    case "reasoning_effort":
      if (!(REASONING_EFFORTS as readonly string[]).includes(value)) throw reject(REASONING_EFFORTS);
      return { ...settings, reasoningEffort: value as ReasoningEffort };
    default:
      throw invalidParams([{ path: ["configId"], message: "unknown config option: mode, model or reasoning_effort" }]);
  }
}
