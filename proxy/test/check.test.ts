import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeService } from "./fake-service.js";
import { CLI, isolatedEnv, UNREACHABLE_URL } from "./proxy-process.js";

let service: FakeService;

beforeEach(async () => {
  service = await FakeService.start();
});

afterEach(async () => {
  await service.stop();
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("--check", () => {
  it("reports the agent, the URL and an accepted token, and exits 0", async () => {
    const r = await run(["--check", "--url", service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`URL:     ${service.url} (from flag)`);
    expect(r.stdout).toContain("Service: hermes-edge 0.0.0-fake, ACP protocol 1");
    expect(r.stdout).toContain("Token accepted: yes");
    expect(r.stdout).toMatch(/^OK$/m);
  });

  it("says unreachable and exits 1 when no service answers at the URL", async () => {
    const r = await run(["--check", "--url", UNREACHABLE_URL], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED \(unreachable\): cannot reach .*connection refused/);
    // README starts the local service with `npm start`; the hint says the same.
    expect(r.stdout).toContain("Locally: `npm start`");
    expect(r.stdout).not.toContain("wrangler dev");
  });

  it("says the token was refused (401) and exits 1", async () => {
    const r = await run(["--check", "--url", service.url, "--token", "bad"], isolatedEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Token accepted: no (HTTP 401 unauthorized)");
    expect(r.stdout).toMatch(/FAILED \(unauthorized\)/);
    expect(r.stdout).toContain(`Run \`node ${CLI} --setup\``);
  });

  it("names the status the service refused the token with: 403 is not reported as 401", async () => {
    service.refusalStatus = 403;
    const r = await run(["--check", "--url", service.url, "--token", "bad"], isolatedEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Token accepted: no (HTTP 403 forbidden)");
    expect(r.stdout).toMatch(/FAILED \(unauthorized\): the service refused the token \(HTTP 403 Forbidden: forbidden\)/);
  });

  it("says wrong path on a 404 from a hermes-edge host", async () => {
    const url = service.url.replace("/acp", "/wrong");
    const r = await run(["--check", "--url", url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED \(wrong path\): .*\/wrong is not its ACP endpoint/);
  });

  it("says protocol version mismatch when the service speaks another ACP version", async () => {
    service.protocolVersion = 2;
    const r = await run(["--check", "--url", service.url], isolatedEnv({ HERMES_EDGE_TOKEN: "good-token" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED \(protocol mismatch\): .*service speaks ACP 2, this proxy speaks ACP 1/);
  });

  it("takes URL and token from the saved config", async () => {
    const env = isolatedEnv();
    const setup = spawn(process.execPath, [CLI, "--setup"], { env, stdio: ["pipe", "pipe", "pipe"] });
    setup.stdin.end(`${service.url}\ngood-token\n`);
    const code = await new Promise((resolve) => setup.on("exit", resolve));
    expect(code).toBe(0);
    const r = await run(["--check"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/URL: .* \(from .*hermes-edge\/config\.json\)/);
    expect(r.stdout).toMatch(/Token: +from the saved config/);
  });
});
