import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatBytes, measureBundle } from "../../../scripts/lib/bundle-size.js";
import { ensureDevVars, parseDevVars } from "../../../scripts/lib/dev-vars.js";
import { expiresAt } from "../../../scripts/lib/expires.js";
import { serviceBaseUrl, isLoopback } from "../../../scripts/lib/service-url.js";
import { startBanner } from "../../../scripts/lib/start-banner.js";
import { formatCommand, jsonOutput } from "../../../scripts/lib/wrangler-cli.js";
import { createdDatabaseId, deployedUrls, PLACEHOLDER_DATABASE_ID, readD1Config, writeDatabaseId } from "../../../scripts/lib/wrangler-config.js";
import { REPO_ROOT } from "./deploy-harness.js";

const scratch = mkdtempSync(join(tmpdir(), "hermes-script-lib-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe(".dev.vars", () => {
  it("is created with a local token and an admin token when missing", () => {
    const path = join(scratch, "new.dev.vars");
    expect(ensureDevVars(path)).toEqual({ created: true, addedAdminToken: true });
    const vars = parseDevVars(readFileSync(path, "utf8"));
    expect(vars.HERMES_EDGE_TOKENS).toMatch(/^local:[0-9a-f]{48}$/);
    expect(vars.HERMES_ADMIN_TOKEN).toMatch(/^[0-9a-f]{48}$/);
  });

  it("only gets a missing HERMES_ADMIN_TOKEN appended, and is never overwritten", () => {
    const path = join(scratch, "old.dev.vars");
    const original = "HERMES_EDGE_TOKENS=me:tok\nOPENAI_API_KEY=sk-mine"; // no trailing newline
    writeFileSync(path, original);
    expect(ensureDevVars(path)).toEqual({ created: false, addedAdminToken: true });
    const text = readFileSync(path, "utf8");
    expect(text.startsWith(`${original}\n`)).toBe(true);
    expect(parseDevVars(text)).toEqual({ HERMES_EDGE_TOKENS: "me:tok", OPENAI_API_KEY: "sk-mine", HERMES_ADMIN_TOKEN: expect.stringMatching(/^[0-9a-f]{48}$/) });
    expect(ensureDevVars(path)).toEqual({ created: false, addedAdminToken: false });
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("parses quoted values and ignores comments", () => {
    expect(parseDevVars('# c\nA="x y"\nB=\'z\'\n  C = 3 \nnot a line')).toEqual({ A: "x y", B: "z", C: "3" });
  });
});

describe("npm start banner", () => {
  const banner = startBanner({ root: "/home/ada/hermes-edge", wsUrl: "ws://127.0.0.1:8787/acp", vars: { HERMES_EDGE_TOKENS: "local:abc123" } });

  it("prints a Zed snippet that runs this clone's proxy with node and an absolute path", () => {
    const json = banner.slice(banner.indexOf("{"), banner.lastIndexOf("}") + 1);
    expect(JSON.parse(json)).toEqual({
      agent_servers: {
        "hermes-edge": {
          type: "custom",
          command: "node",
          args: ["/home/ada/hermes-edge/proxy/dist/cli.js", "--url", "ws://127.0.0.1:8787/acp"],
          env: { HERMES_EDGE_TOKEN: "abc123" },
        },
      },
    });
  });

  it("shows the npx form separately, for the published package, and how to create a key", () => {
    expect(banner).toContain('Once hermes-edge-proxy is published, the same with "command": "npx", "args": ["-y","hermes-edge-proxy","--url","ws://127.0.0.1:8787/acp"]');
    expect(banner).toContain('npm run keys -- create --tenant local --label "my laptop"');
    expect(banner).toContain("model: none configured yet");
    expect(banner).not.toContain("--url http");
  });

  it("points the keys commands at the service's port when PORT is not 8787", () => {
    const other = startBanner({ root: "/home/ada/hermes-edge", wsUrl: "ws://127.0.0.1:8790/acp", vars: {} });
    expect(other).toContain('npm run keys -- create --tenant local --label "my laptop" --url http://127.0.0.1:8790');
    expect(other).toContain("npm run keys -- list --url http://127.0.0.1:8790");
  });
});

describe("wrangler.toml and wrangler output", () => {
  const toml = readFileSync(join(REPO_ROOT, "wrangler.toml"), "utf8");

  it("reads the D1 entry and replaces only its placeholder id", () => {
    expect(readD1Config(toml)).toEqual({ name: "hermes-edge", id: PLACEHOLDER_DATABASE_ID });
    const id = "6f1c2a9e-2b7d-4d5e-9a51-0c3b8e7f1a22";
    const written = writeDatabaseId(toml, id);
    expect(readD1Config(written)).toEqual({ name: "hermes-edge", id });
    expect(written.replace(id, PLACEHOLDER_DATABASE_ID)).toBe(toml);
  });

  it("finds the new database id in `d1 create` output (TOML or JSON snippet) and the deployed URLs", () => {
    const id = "6f1c2a9e-2b7d-4d5e-9a51-0c3b8e7f1a22";
    expect(createdDatabaseId(`✅ Successfully created DB 'hermes-edge'\n[[d1_databases]]\nbinding = "hermes_edge"\ndatabase_name = "hermes-edge"\ndatabase_id = "${id}"\n`)).toBe(id);
    expect(createdDatabaseId(`{ "d1_databases": [ { "database_id": "${id}" } ] }`)).toBe(id);
    expect(createdDatabaseId("✘ [ERROR] failed")).toBeUndefined();
    expect(deployedUrls("Uploaded x (1 sec)\nDeployed x triggers (1 sec)\n  https://x.ada.workers.dev\n  schedule: * * * * *\nCurrent Version ID: 1")).toEqual(["https://x.ada.workers.dev"]);
  });

  it("reads JSON after wrangler's banner and quotes commands for display", () => {
    expect(jsonOutput('\n ⛅️ wrangler 4.86.0\n───\n[\n  {"name": "A"}\n]\n')).toEqual([{ name: "A" }]);
    expect(jsonOutput("no json")).toBeUndefined();
    expect(formatCommand(["d1", "create", "my db"])).toBe("wrangler d1 create 'my db'");
  });

  it("measures the bundle like wrangler: modules only, gzipped together", () => {
    const dir = mkdtempSync(join(scratch, "bundle-"));
    writeFileSync(join(dir, "worker.js"), "x".repeat(10_000));
    writeFileSync(join(dir, "worker.js.map"), "y".repeat(100_000));
    writeFileSync(join(dir, "README.md"), "readme");
    const size = measureBundle(dir);
    expect(size.files).toEqual(["worker.js"]);
    expect(size.rawBytes).toBe(10_000);
    expect(size.gzipBytes).toBeLessThan(200);
    expect(formatBytes(3 * 1024 * 1024)).toBe("3.00 MiB");
  });
});

describe("npm run keys helpers", () => {
  const now = Date.parse("2026-03-01T12:00:00Z");

  it("turns --expires into an ISO time", () => {
    expect(expiresAt("30d", now)).toBe("2026-03-31T12:00:00.000Z");
    expect(expiresAt("12h", now)).toBe("2026-03-02T00:00:00.000Z");
    expect(expiresAt("2w", now)).toBe("2026-03-15T12:00:00.000Z");
    expect(expiresAt("2026-12-31", now)).toBe("2026-12-31T00:00:00.000Z");
    expect(expiresAt("2026-04-01T08:00:00+02:00", now)).toBe("2026-04-01T06:00:00.000Z");
    expect(() => expiresAt("0d", now)).toThrow(/future/);
    expect(() => expiresAt("2020-01-01", now)).toThrow(/future/);
    expect(() => expiresAt("soon", now)).toThrow(/30d/);
  });

  it("accepts the URL editors use and finds the service's base", () => {
    expect(serviceBaseUrl("wss://hermes.ada.workers.dev/acp").href).toBe("https://hermes.ada.workers.dev/");
    expect(serviceBaseUrl("ws://127.0.0.1:8787/acp").href).toBe("http://127.0.0.1:8787/");
    expect(serviceBaseUrl("https://example.com/hermes/acp/").href).toBe("https://example.com/hermes");
    expect(serviceBaseUrl("hermes.example.com").href).toBe("https://hermes.example.com/");
    expect(() => serviceBaseUrl("ftp://x")).toThrow(/http/);
    expect(isLoopback(serviceBaseUrl("http://localhost:8787"))).toBe(true);
    expect(isLoopback(serviceBaseUrl("https://hermes.ada.workers.dev"))).toBe(false);
  });
});
