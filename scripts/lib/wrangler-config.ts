/**
 * The parts of wrangler.toml that `npm run deploy` reads and writes: the D1
 * database's name and id (the clone ships a placeholder id until the first
 * deploy writes the real one) and the Worker name.
 * @module
 */

export const PLACEHOLDER_DATABASE_ID = "00000000-0000-4000-8000-000000000000";

export interface D1Config {
  name: string;
  id: string;
}

/** The first `[[d1_databases]]` entry. */
export function readD1Config(toml: string): D1Config {
  const block = toml.split(/^\[\[d1_databases\]\]\s*$/m)[1]?.split(/^\[/m)[0];
  const name = block?.match(/^database_name\s*=\s*"([^"]+)"/m)?.[1];
  const id = block?.match(/^database_id\s*=\s*"([^"]*)"/m)?.[1];
  if (!name || id === undefined) throw new Error("wrangler.toml has no [[d1_databases]] entry with database_name and database_id");
  return { name, id };
}

export function writeDatabaseId(toml: string, id: string): string {
  const current = readD1Config(toml).id;
  return toml.replace(`database_id = "${current}"`, `database_id = "${id}"`);
}

export function workerName(toml: string): string {
  const name = toml.match(/^name\s*=\s*"([^"]+)"/m)?.[1];
  if (!name) throw new Error('wrangler.toml has no top-level name = "…"');
  return name;
}

export function accountId(toml: string): string | undefined {
  return toml.split(/^\[/m)[0]?.match(/^account_id\s*=\s*"([^"]+)"/m)?.[1];
}

/** The database id in `wrangler d1 create` output (its TOML or JSON config snippet). */
export function createdDatabaseId(output: string): string | undefined {
  return output.match(/"?database_id"?\s*[=:]\s*"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/i)?.[1];
}

/** The https URLs `wrangler deploy` lists under "Deployed … triggers". */
export function deployedUrls(output: string): string[] {
  return [...output.matchAll(/^\s+(https:\/\/\S+)\s*$/gm)].map((m) => m[1]!);
}
