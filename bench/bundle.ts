/**
 * Figure 1c — the Worker bundle (issue 25, target 7's size part): what
 * `wrangler deploy --dry-run --outdir DIR --metafile FILE` uploads, raw and
 * gzipped, as shipped (wrangler.toml's `minify = true`) and unminified
 * (`--no-minify`), and the bytes each package leaves in it (esbuild metafile).
 * Nothing is uploaded; it runs offline.
 *
 *   npx tsx bench/bundle.ts
 *   BENCH_BASELINE_DIR=/path/to/main npx tsx bench/bundle.ts   # before and after in one run
 */
import { BUNDLE_BUDGET, packageBreakdown, unwantedInputs } from "../scripts/lib/bundle-breakdown.js";
import { buildBundle } from "../scripts/lib/bundle-build.js";
import { formatBytes } from "../scripts/lib/bundle-size.js";
import { checkouts } from "./lib/baseline.js";
import { against, isMain, runFigure, type FigureContext, type SummaryRow } from "./lib/figure.js";
import { table } from "./lib/stats.js";

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

export async function bundleFigure(ctx: FigureContext): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  for (const { label, dir } of checkouts()) {
    const shipped = await buildBundle(dir);
    ctx.checkTime("the shipped build");
    const plain = await buildBundle(dir, ["--no-minify"]);
    ctx.log(`${label || "this tree: "}${dir}`);
    ctx.log(`  as shipped:  ${shipped.wranglerLine}`);
    ctx.log(`  unminified:  ${plain.wranglerLine}\n`);
    const shippedBy = new Map(packageBreakdown(shipped.meta).map((p) => [p.name, p.bytes]));
    const plainBy = packageBreakdown(plain.meta);
    const plainTotal = plainBy.reduce((sum, p) => sum + p.bytes, 0);
    ctx.log(
      table(
        ["package", "KiB unminified", "share", "KiB as shipped"],
        plainBy.map((p) => [p.name, kib(p.bytes), `${((100 * p.bytes) / plainTotal).toFixed(1)}%`, kib(shippedBy.get(p.name) ?? 0)]),
      ),
    );
    const { ajv: unwanted, zodLocales: locales } = unwantedInputs(plain.meta);
    ctx.log(`\n  ajv and friends in the bundle: ${unwanted.length} files; zod locales besides English: ${locales.length} files\n`);
    const figure = "1c bundle";
    rows.push(
      { figure, metric: `${label}raw upload (wrangler.toml as is)`, value: formatBytes(shipped.rawBytes), target: "≤ 1.80 MiB", ...against(shipped.rawBytes / 1024, BUNDLE_BUDGET.rawBytes / 1024, "KiB") },
      { figure, metric: `${label}gzip upload (wrangler.toml as is)`, value: formatBytes(shipped.gzipBytes), target: "≤ 350.0 KiB", ...against(shipped.gzipBytes / 1024, BUNDLE_BUDGET.gzipBytes / 1024, "KiB") },
      { figure, metric: `${label}unminified raw / gzip`, value: `${formatBytes(plain.rawBytes)} / ${formatBytes(plain.gzipBytes)}`, target: "—", status: "info" },
      { figure, metric: `${label}ajv files / non-English zod locales`, value: `${unwanted.length} / ${locales.length}`, target: "0 / 0", status: unwanted.length + locales.length === 0 ? "met" : "missed" },
    );
  }
  return rows;
}

if (isMain(import.meta.url)) {
  await runFigure("figure 1c", "the Worker bundle: raw and gzip upload, by package", 10 * 60_000, bundleFigure);
}
