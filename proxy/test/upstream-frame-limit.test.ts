/**
 * An upstream agent's message too large for the service's frame limit: the
 * service refuses the tunnel frame with an error whose id is null (it cannot
 * read the frame). The proxy sent that frame, not the editor, so it settles
 * it: the service's request gets an error answer naming the sizes, the agent's
 * own request gets that error, and the editor sees nothing of it. The agent is
 * a real process; every frame the editor gets is checked against the ACP schema.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentFrameValidator } from "../../test/support/acp-schema.js";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv, WAIT_MS } from "./proxy-process.js";
import { removeScratchDirs, scratchDir } from "../../test/support/scratch-dir.js";

afterAll(removeScratchDirs);

const fx = useFakeService();

// Answers a request with 10,000 characters; on "ask" it asks the service something that large, and prints what it gets back on stderr.
const AGENT = `
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "ask") return console.log(JSON.stringify({ jsonrpc: "2.0", id: "agent-1", method: "fs/read_text_file", params: { path: "x".repeat(10000) } }));
  if (m.method !== undefined && m.id !== undefined) return console.log(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { text: "y".repeat(10000) } }));
  if (m.id === "agent-1") console.error("agent got: " + JSON.stringify(m));
});
`;

const tunnelled = () =>
  fx.service.received.filter((r) => r.message["method"] === "_hermes/upstream/message").map((r) => (r.message["params"] as { message: Record<string, unknown> }).message);

describe("an upstream agent's message over the service's frame limit", () => {
  it("answers the service's request with an error naming the sizes, gives the agent's own request that error, and shows the editor nothing", async () => {
    const file = join(scratchDir("upstream-frame-"), "agent.cjs");
    writeFileSync(file, AGENT);
    const p = fx.spawn(["--url", fx.service.url, "--log-level", "debug", "--upstream", `big="${process.execPath}" "${file}"`], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    const validator = new AgentFrameValidator();
    validator.sent({ id: 1, method: "initialize" });
    await p.request("initialize", INIT_PARAMS);
    fx.service.maxFrameBytes = 4096;

    fx.service.notifyClient("_hermes/upstream/message", { upstreamId: "big", message: { jsonrpc: "2.0", id: "s~1", method: "session/prompt", params: {} } });
    const limit = /a message of 10,\d{3} bytes from the local upstream agent big, over the service's 4,096-byte frame limit \(HERMES_MAX_FRAME_BYTES\)/;
    for (let i = 0; i < 150 && !tunnelled().some((m) => m["error"]) && !p.messages.some((m) => m.id === null); i++) await new Promise((r) => setTimeout(r, 20));
    expect(p.messages.filter((m) => m.id === null)).toEqual([]);
    expect(tunnelled().filter((m) => m["id"] === "s~1")).toEqual([{ jsonrpc: "2.0", id: "s~1", error: { code: -32603, message: expect.stringMatching(new RegExp(`^The service could not read ${limit.source}$`)) } }]);

    fx.service.notifyClient("_hermes/upstream/message", { upstreamId: "big", message: { jsonrpc: "2.0", method: "ask" } });
    await p.waitForStderr(/agent got: /, WAIT_MS);
    expect(p.stderr).toMatch(new RegExp(`agent got: .*"id":"agent-1","error":\\{"code":-32603,"message":"hermes-edge-proxy could not pass on ${limit.source}"`));

    expect(p.messages.filter((m) => m.id === null)).toEqual([]);
    for (const m of p.messages) validator.received(m as never);
    expect(validator.errors).toEqual([]);
    expect(p.garbage).toEqual([]);
  });
});
