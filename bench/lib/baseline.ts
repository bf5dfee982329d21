/**
 * Before and after in one run: a figure measures another checkout first
 * (`--baseline DIR` or BENCH_BASELINE_DIR, e.g. an export of main), then this
 * tree, so both share the machine's load.
 */
import { WsAcpClient } from "./acp-client.js";
import { REPO_ROOT } from "./machine.js";
import { startService, TOKEN, type Service, type ServiceOptions } from "./service.js";

export const BASELINE_LABEL = "baseline: ";

/** The checkouts to measure, in order, each with the label its rows start with. */
export function checkouts(argv: string[] = process.argv): { label: string; dir: string }[] {
  const i = argv.indexOf("--baseline");
  const base = (i >= 0 ? argv[i + 1] : undefined) ?? process.env["BENCH_BASELINE_DIR"];
  const self = process.env["BENCH_SERVICE_DIR"] ?? REPO_ROOT;
  return base ? [{ label: BASELINE_LABEL, dir: base }, { label: "this tree: ", dir: self }] : [{ label: "", dir: self }];
}

/** `wrangler dev` of the checkout in `dir` and a WebSocket client on it (stopped together on failure). */
export async function startServiceIn(dir: string, opts: ServiceOptions = {}): Promise<{ service: Service; client: WsAcpClient }> {
  const saved = process.env["BENCH_SERVICE_DIR"];
  process.env["BENCH_SERVICE_DIR"] = dir;
  let service: Service;
  try {
    service = await startService(opts);
  } finally {
    if (saved === undefined) delete process.env["BENCH_SERVICE_DIR"];
    else process.env["BENCH_SERVICE_DIR"] = saved;
  }
  try {
    return { service, client: await WsAcpClient.open(service.wsUrl, TOKEN) };
  } catch (err) {
    await service.stop();
    throw err;
  }
}
