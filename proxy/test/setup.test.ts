import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

function setup(input: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "--setup"], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("--setup", () => {
  it("verifies URL and token against the service and saves them with mode 0600, prompting on stderr only", async () => {
    const env = isolatedEnv();
    const r = await setup(`${service.url}\ngood-token\n`, env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/Service URL \[ws:\/\/127\.0\.0\.1:8787\/acp\]: /);
    expect(r.stderr).toContain("token accepted");
    const path = join(env["XDG_CONFIG_HOME"] ?? "", "hermes-edge", "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ url: service.url, token: "good-token" });
    // A successful handshake: the service saw an initialize from the proxy.
    expect(service.receivedMethods("initialize")).toHaveLength(1);
  });

  it("keeps the saved file's other keys (upstreams) when it rewrites the URL and token", async () => {
    const env = isolatedEnv();
    const dir = join(env["XDG_CONFIG_HOME"] ?? "", "hermes-edge");
    mkdirSync(dir, { recursive: true });
    const upstreams = { local: "npx some-acp-agent" };
    writeFileSync(join(dir, "config.json"), JSON.stringify({ url: "ws://old.example/acp", token: "old-token", upstreams, note: "mine" }));
    const r = await setup(`${service.url}
good-token
`, env);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8"))).toEqual({ url: service.url, token: "good-token", upstreams, note: "mine" });
  });

  it("saves nothing and exits 1 when the token is refused", async () => {
    const env = isolatedEnv();
    const r = await setup(`${service.url}\nbad-token\n`, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused the token/);
    expect(existsSync(join(env["XDG_CONFIG_HOME"] ?? "", "hermes-edge", "config.json"))).toBe(false);
  });

  it("saves an unverified setting only when asked, and still exits 1", async () => {
    const env = isolatedEnv();
    const r = await setup(`${UNREACHABLE_URL}\ntok\ny\n`, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Saved to .*unverified/);
    expect(existsSync(join(env["XDG_CONFIG_HOME"] ?? "", "hermes-edge", "config.json"))).toBe(true);
  });
});
