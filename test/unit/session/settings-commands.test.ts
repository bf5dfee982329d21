import { describe, expect, it } from "vitest";
import { RequestError } from "@hermes-edge/protocol";
import { applyConfigOption, configOptions } from "../../../src/session/config-options.js";
import { modeDecision, toolAllowedInMode } from "../../../src/session/modes.js";
import { parseSlashCommand } from "../../../src/session/slash-commands.js";

const settings = { mode: "default", model: "m1", reasoningEffort: "medium" as const };

describe("config options", () => {
  it("lists mode, model and reasoning effort with their categories", () => {
    expect(configOptions(settings, ["m1", "m2"]).map((o) => [o.id, o.category, o.type === "select" && o.currentValue])).toEqual([
      ["mode", "mode", "default"],
      ["model", "model", "m1"],
      ["reasoning_effort", "thought_level", "medium"],
    ]);
  });

  it("applies valid values and rejects others with -32602", () => {
    expect(applyConfigOption(settings, ["m1", "m2"], "model", "m2").model).toBe("m2");
    expect(applyConfigOption(settings, ["m1"], "mode", "dont_ask").mode).toBe("dont_ask");
    for (const [id, value] of [["model", "m3"], ["mode", "yolo"], ["reasoning_effort", "max"], ["nope", "x"], ["mode", 3]] as const) {
      const err = (() => {
        try {
          applyConfigOption(settings, ["m1"], id, value);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(RequestError);
      expect((err as RequestError).code).toBe(-32602);
    }
  });
});

describe("modes", () => {
  it("read_only offers no edit or execute tools", () => {
    expect(toolAllowedInMode("read_only", "edit")).toBe(false);
    expect(toolAllowedInMode("read_only", "execute")).toBe(false);
    expect(toolAllowedInMode("read_only", "search")).toBe(true);
    expect(toolAllowedInMode("default", "execute")).toBe(true);
  });

  it.each([
    ["default", "edit", false, "ask"],
    ["default", "execute", false, "ask"],
    ["accept_edits", "edit", false, "allow"],
    ["accept_edits", "execute", false, "ask"],
    ["dont_ask", "execute", false, "allow"],
    ["dont_ask", "edit", true, "ask"],
    ["read_only", "edit", false, "deny"],
  ] as const)("%s mode, %s (sensitive %s) → %s", (mode, kind, sensitive, expected) => {
    expect(modeDecision(mode, kind, sensitive)).toBe(expected);
  });
});

describe("slash commands", () => {
  it("parses known commands with their argument", () => {
    expect(parseSlashCommand([{ type: "text", text: "/model gpt-x" }])).toEqual({ name: "model", arg: "gpt-x" });
    expect(parseSlashCommand([{ type: "text", text: "  /steer  use\ntabs " }])).toEqual({ name: "steer", arg: "use\ntabs" });
    expect(parseSlashCommand([{ type: "text", text: "/help" }])).toEqual({ name: "help", arg: "" });
  });

  it("leaves unknown commands, plain text and multi-block prompts to the model", () => {
    expect(parseSlashCommand([{ type: "text", text: "/frobnicate" }])).toBeNull();
    expect(parseSlashCommand([{ type: "text", text: "please /help" }])).toBeNull();
    expect(parseSlashCommand([{ type: "text", text: "/help" }, { type: "text", text: "more" }])).toBeNull();
  });
});
