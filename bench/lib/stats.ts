/**
 * Order statistics for benchmark samples. Percentiles interpolate linearly
 * between the two nearest ranks (the "type 7" definition that numpy and most
 * spreadsheets use), so p50 of an even count is the mean of the middle two.
 */

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** The q-quantile (0..1) of already sorted values; NaN when empty. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: quantileSorted(sorted, 0.5),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

export const median = (values: readonly number[]): number => summarize(values).p50;

/** `1.234` → "1.23"; keeps three significant figures for small values. */
export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) >= 100) return value.toFixed(Math.max(0, digits - 2));
  if (Math.abs(value) >= 10) return value.toFixed(Math.max(0, digits - 1));
  return value.toFixed(digits);
}

export const ms = (value: number, digits = 2): string => `${fmt(value, digits)} ms`;

/** "median 1.23 ms, p95 2.34 ms (min 0.9 – max 5.1 ms, n 200)". */
export function describeMs(s: Summary): string {
  return `median ${ms(s.p50)}, p95 ${ms(s.p95)} (min ${fmt(s.min)} – max ${fmt(s.max)} ms, n ${s.n})`;
}

/** Prints an aligned plain-text table (also valid as a Markdown table). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

/** Standard columns for a latency summary row. */
export const LATENCY_HEADER = ["what", "n", "min", "median", "p95", "p99", "max"] as const;

export function latencyRow(what: string, s: Summary): string[] {
  return [what, String(s.n), fmt(s.min), fmt(s.p50), fmt(s.p95), fmt(s.p99), fmt(s.max)];
}
