/**
 * `--expires` for `npm run keys -- create`: a duration from now (`30d`, `12h`,
 * `90m`) or a date/time (`2026-12-31` is midnight UTC at its start).
 * @module
 */

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** The ISO time the key expires at. @throws a message saying what is accepted. */
export function expiresAt(raw: string, now: number): string {
  const duration = raw.trim().match(/^(\d+)\s*([mhdw])$/i);
  if (duration) {
    const amount = Number(duration[1]);
    if (amount <= 0) throw new Error(`--expires must be in the future, got ${raw}`);
    return new Date(now + amount * UNIT_MS[duration[2]!.toLowerCase()]!).toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}(T.+)?$/.test(raw.trim())) {
    const text = raw.trim().length === 10 ? `${raw.trim()}T00:00:00Z` : raw.trim();
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw new Error(`--expires: not a date: ${raw}`);
    if (at <= now) throw new Error(`--expires must be in the future, got ${raw}`);
    return new Date(at).toISOString();
  }
  throw new Error(`--expires takes a duration like 30d, 12h, 90m or 2w, or a date like 2026-12-31; got ${raw}`);
}
