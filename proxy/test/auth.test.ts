import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeService } from "./fake-service.js";
import { INIT_PARAMS, isolatedEnv, ProxyProcess } from "./proxy-process.js";

let service: FakeService;
let proxy: ProxyProcess | undefined;

beforeEach(async () => {
  service = await FakeService.start();
});

afterEach(async () => {
  proxy?.kill();
  proxy = undefined;
  await service.stop();
});

describe("401 at connect", () => {
  it("answers initialize with an auth error, names the token source on stderr, and exits 1", async () => {
    const p = (proxy = new ProxyProcess(["--url", service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "wrong-token" })));
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
    const p = (proxy = new ProxyProcess(["--url", service.url], isolatedEnv()));
    p.send({ id: 1, method: "initialize", params: INIT_PARAMS });
    await p.waitFor((m) => m.id === 1);
    expect((await p.exited).code).toBe(1);
    expect(p.stderr).toMatch(/Token used: no token/);
  });

  it("sends the token from --token and extra --header values on the upgrade", async () => {
    const p = (proxy = new ProxyProcess(["--url", service.url, "--token", "good-token", "--header", "X-Tenant: acme"], isolatedEnv()));
    const answer = await p.request("initialize", INIT_PARAMS);
    expect(answer["result"]).toBeDefined();
    expect(service.upgradeHeaders[0]).toMatchObject({ authorization: "Bearer good-token", "x-tenant": "acme" });
  });
});
