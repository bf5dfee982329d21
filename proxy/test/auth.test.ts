import { describe, expect, it } from "vitest";
import { useFakeService } from "./fixture.js";
import { INIT_PARAMS, isolatedEnv, ProxyProcess } from "./proxy-process.js";

const fx = useFakeService();

describe("401 at connect", () => {
  it("answers initialize with an auth error, names the token source on stderr, and exits 1", async () => {
    const p = fx.spawn(["--url", fx.service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "wrong-token" }));
    p.send({ id: 1, method: "initialize", params: INIT_PARAMS });
    const answer = await p.waitFor((m) => m.id === 1, 5000, "initialize answer");
    expect(answer["error"]).toMatchObject({ code: -32000, message: expect.stringContaining("HERMES_EDGE_TOKEN") });
    expect((await p.exited).code).toBe(1);
    expect(p.stderr).toMatch(/refused the connection \(HTTP 401/);
    expect(p.stderr).toMatch(/Token used: the HERMES_EDGE_TOKEN environment variable/);
    expect(p.stderr).not.toContain("wrong-token");
    expect(p.garbage).toEqual([]);
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
