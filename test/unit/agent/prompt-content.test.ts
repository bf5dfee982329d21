import type { ContentBlock } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { promptText, toUserContent } from "../../../src/agent/prompt-content.js";

describe("toUserContent", () => {
  it("turns text into a text part", () => {
    expect(toUserContent([{ type: "text", text: "Hello" }])).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("turns an image into a data URL of its payload", () => {
    expect(toUserContent([{ type: "image", data: "iVBORw0K", mimeType: "image/png" }])).toEqual([
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
    ]);
  });

  it("prefers an image's payload over its URI, which may be local to the editor", () => {
    const blocks: ContentBlock[] = [
      { type: "image", data: "AAAA", mimeType: "image/jpeg", uri: "http://localhost:3000/shot.jpg" },
      { type: "image", data: "BBBB", mimeType: "image/gif", uri: "file:///home/me/a.gif" },
    ];
    expect(toUserContent(blocks)).toEqual([
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
      { type: "image_url", image_url: { url: "data:image/gif;base64,BBBB" } },
    ]);
  });

  it("uses an image's http(s) URI when it carries no payload", () => {
    expect(toUserContent([{ type: "image", data: "", mimeType: "image/png", uri: "https://example.com/a.png" }])).toEqual([
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
    ]);
  });

  it("replaces audio with a note saying it was omitted", () => {
    expect(toUserContent([{ type: "audio", data: "UklGR", mimeType: "audio/wav" }])).toEqual([
      { type: "text", text: "[audio attachment (audio/wav) omitted: this agent does not process audio]" },
    ]);
  });

  it("describes a resource link by title, else by name, with its description", () => {
    const blocks: ContentBlock[] = [
      { type: "resource_link", uri: "file:///src/a.ts", name: "a.ts", title: "Module A", description: "the entry point" },
      { type: "resource_link", uri: "file:///src/b.ts", name: "b.ts" },
    ];
    expect(toUserContent(blocks)).toEqual([
      { type: "text", text: "[Referenced resource: Module A <file:///src/a.ts> — the entry point]" },
      { type: "text", text: "[Referenced resource: b.ts <file:///src/b.ts>]" },
    ]);
  });

  it("inlines an embedded text resource with its URI", () => {
    const block: ContentBlock = {
      type: "resource",
      resource: { uri: "file:///src/a.ts", text: "export const a = 1;", mimeType: "text/typescript" },
    };
    expect(toUserContent([block])).toEqual([
      { type: "text", text: '<resource uri="file:///src/a.ts">\nexport const a = 1;\n</resource>' },
    ]);
  });

  it("replaces an embedded binary resource with a note naming its type", () => {
    const blocks: ContentBlock[] = [
      { type: "resource", resource: { uri: "file:///a.bin", blob: "AAEC", mimeType: "application/octet-stream" } },
      { type: "resource", resource: { uri: "file:///b.bin", blob: "AAEC" } },
    ];
    expect(toUserContent(blocks)).toEqual([
      { type: "text", text: "[binary resource file:///a.bin (application/octet-stream) omitted]" },
      { type: "text", text: "[binary resource file:///b.bin (unknown type) omitted]" },
    ]);
  });

  it("keeps one part per block, in order", () => {
    const parts = toUserContent([
      { type: "text", text: "look at" },
      { type: "resource_link", uri: "file:///x", name: "x" },
      { type: "text", text: "please" },
    ]);
    expect(parts.map((p) => (p.type === "text" ? p.text : p.type))).toEqual([
      "look at",
      "[Referenced resource: x <file:///x>]",
      "please",
    ]);
  });
});

describe("promptText", () => {
  it("joins text and the URIs of links and resources, one per line, skipping media", () => {
    const prompt: ContentBlock[] = [
      { type: "text", text: "Review this" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "resource_link", uri: "file:///src/a.ts", name: "a.ts" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///src/b.ts", text: "const b = 2;" } },
      { type: "text", text: "" },
      { type: "text", text: "thanks" },
    ];
    expect(promptText(prompt)).toBe("Review this\nfile:///src/a.ts\nfile:///src/b.ts\nthanks");
  });

  it("is empty for a prompt without text or references", () => {
    expect(promptText([{ type: "image", data: "AAAA", mimeType: "image/png" }])).toBe("");
  });
});
