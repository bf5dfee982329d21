/**
 * Which URLs `web_fetch` may request. The fetch runs on the service, not on the
 * user's machine, so a model (or a prompt injected into a page it read) must
 * not be able to point it at loopback, private networks, link-local metadata
 * endpoints or internal names. The check is lexical: it sees the host as the
 * URL parser normalized it (`http://2130706433/` is `127.0.0.1`), and redirects
 * are re-checked hop by hop by the caller. Names that merely *resolve* to a
 * private address cannot be caught here (Workers have no DNS API); Cloudflare's
 * egress does not reach private networks anyway.
 */
import { ToolError } from "./tool.js";

/** The URL to fetch, normalized. @throws ToolError saying why the URL is refused. */
export function checkFetchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError(`"${raw}" is not a valid URL. Give an absolute http:// or https:// URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(`Only http:// and https:// URLs can be fetched, not ${url.protocol}//.`);
  }
  if (isPrivateHost(url.hostname)) {
    throw new ToolError(
      `${url.hostname} is a local or private address. web_fetch runs on the agent's server, not on your machine, so it only fetches public hosts.`,
    );
  }
  return url;
}

/** True for hosts a server-side fetch must not reach: loopback, private, link-local, local names. */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return true;
  if (host.startsWith("[") && host.endsWith("]")) return isPrivateIPv6(host.slice(1, -1));
  const v4 = parseIPv4(host);
  if (v4) return isPrivateIPv4(v4);
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    host.endsWith(".home.arpa")
  );
}

type Octets = [number, number, number, number];

function parseIPv4(host: string): Octets | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? (octets as Octets) : null;
}

function isPrivateIPv4([a, b]: Octets): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, incl. cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

function isPrivateIPv6(address: string): boolean {
  const groups = expandIPv6(address);
  if (!groups) return true; // unparseable: refuse rather than guess
  if (groups.every((g) => g === 0)) return true; // ::
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  const first = groups[0] ?? 0;
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  // ::ffff:a.b.c.d, IPv4-mapped: judge the IPv4 address inside.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const hi = groups[6] ?? 0;
    const lo = groups[7] ?? 0;
    return isPrivateIPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  return false;
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a dotted IPv4 tail. */
function expandIPv6(address: string): number[] | null {
  let text = address.split("%")[0] ?? "";
  const dotted = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseIPv4(dotted[1]);
    if (!v4) return null;
    text = text.slice(0, -dotted[1].length) + `${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part ? part.split(":") : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}
