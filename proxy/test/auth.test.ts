import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { CLI, INIT_PARAMS, isolatedEnv, ProxyProcess, WAIT_MS } from "./proxy-process.js";

const fx = useFakeService();

describe("401 at connect", () => {
  it("answers initialize with an auth error, names the token source on stderr, and exits 1", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "wrong-token" }));
    p.send({ id: 1, method: "initialize", params: INIT_PARAMS });
    const answer = await p.waitFor((m) => m.id === 1, WAIT_MS, "initialize answer");
    // A body that is not the service's JSON error (this one is plain text) is shown as it came.
    expect(answer["error"]).toMatchObject({ code: -32000, message: expect.stringContaining("refused the token (HTTP 401 Unauthorized: unauthorized); token source: the HERMES_EDGE_TOKEN") });
    expect((await p.exited).code).toBe(1);
    expect(p.stderr).toMatch(/refused the connection \(HTTP 401/);
    expect(p.stderr).toMatch(/Token used: the HERMES_EDGE_TOKEN environment variable/);
    expect(p.stderr).not.toContain("wrong-token");
    expect(p.garbage).toEqual([]);
  });

  it("tells the editor the key was revoked, in message and data.details, with a --setup command that works from a clone", async () => {
    fx.service.refusalBody = '{"error":{"code":-32000,"message":"key revoked","data":{"reason":"revoked"}}}';
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "revoked-token" }));
    const answer = await p.request("initialize", INIT_PARAMS);
    const error = answer["error"] as { message: string; data: { reason: string; details: string } };
    // The service's JSON error body, read: its message in words, never the JSON around it.
    // From a clone npx finds no hermes-edge-proxy package: the hint runs this clone's CLI.
    expect(error.message).toBe(
      `hermes-edge at ${fx.service.url} refused the token (HTTP 401 Unauthorized: key revoked); ` +
        `token source: the HERMES_EDGE_TOKEN environment variable. Run "node ${CLI} --setup" or set HERMES_EDGE_TOKEN.`,
    );
    expect(error.data).toMatchObject({ reason: "unauthorized", details: error.message });
    expect(error.message).not.toContain('{"error"');
    expect(error.data.details).not.toContain('{"error"');
    expect((await p.exited).code).toBe(1);
    expect(p.stderr).toContain("refused the connection (HTTP 401 Unauthorized: key revoked)");
    expect(p.stderr).not.toContain('{"error"');
  });

  it("says when no token was configured at all", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv());
    p.send({ id: 1, method: "initialize", params: INIT_PARAMS });
    await p.waitFor((m) => m.id === 1);
    expect((await p.exited).code).toBe(1);
    expect(p.stderr).toMatch(/Token used: no token/);
  });

  it("sends the token from --token and extra --header values on the upgrade", async () => {
    const p = fx.spawn(["--url", fx.service.url, "--token", "good-token", "--header", "X-Tenant: acme"], isolatedEnv());
    const answer = await p.request("initialize", INIT_PARAMS);
    expect(answer["result"]).toBeDefined();
    expect(fx.service.upgradeHeaders[0]).toMatchObject({ authorization: "Bearer good-token", "x-tenant": "acme" });
  });
});
