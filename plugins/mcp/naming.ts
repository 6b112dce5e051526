/**
 * Registry names for MCP tools, prompts and servers: `mcp__<server>__<tool>`, within what model APIs
 * accept (`^[a-zA-Z0-9_-]{1,64}$`). A name that had to change (bad characters, too long, or a clash
 * after replacing characters) gets a short hash of the original, so names are stable across runs
 * and two tools never end up with the same name.
 */
import { createHash } from "node:crypto";

export const MAX_NAME_LENGTH = 64;
/** Longest server part; leaves room for a readable tool part. */
export const MAX_SERVER_PART = 32;
const HASH_LENGTH = 6;

export function sanitize(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, "_");
}

export function shortHash(s: string, length = HASH_LENGTH): string {
  return createHash("sha256").update(s).digest("hex").slice(0, length);
}

/**
 * Map each original name to a unique sanitized name of at most `maxLength` characters.
 * A name that is already clean, fits and is unique keeps its exact spelling; every other name
 * becomes `<sanitized head>_<hash of the original>`.
 */
export function uniqueNames(originals: readonly string[], maxLength: number): Map<string, string> {
  const clean = new Map<string, number>();
  for (const o of originals) {
    const s = sanitize(o);
    clean.set(s, (clean.get(s) ?? 0) + (s === o ? 1 : 0));
  }
  const out = new Map<string, string>();
  const taken = new Set<string>();
  const hashed: string[] = [];
  for (const o of new Set(originals)) {
    const s = sanitize(o);
    // Keep the plain name when it is the original spelling (a clean name beats a dirty one that maps onto it).
    if (s === o && s.length > 0 && s.length <= maxLength && clean.get(s) === 1 && !taken.has(s)) {
      out.set(o, s);
      taken.add(s);
    } else hashed.push(o);
  }
  for (const o of hashed) {
    const head = sanitize(o).slice(0, Math.max(0, maxLength - HASH_LENGTH - 1));
    let name = head ? `${head}_${shortHash(o)}` : shortHash(o);
    // A hash clash with another name is astronomically rare; salt until unique anyway.
    for (let i = 1; taken.has(name); i++) name = `${head}_${shortHash(`${o}#${i}`)}`.slice(-maxLength);
    out.set(o, name);
    taken.add(name);
  }
  return out;
}

/** Server parts (`github` in `mcp__github__search`), unique across the configured servers. */
export function serverParts(servers: readonly string[]): Map<string, string> {
  return uniqueNames(servers, MAX_SERVER_PART);
}

export function prefixFor(serverPart: string): string {
  return `mcp__${serverPart}__`;
}

/** Registry names for one server's tools (or prompts), keyed by the original MCP name. */
export function namesFor(serverPart: string, originals: readonly string[]): Map<string, string> {
  const prefix = prefixFor(serverPart);
  const local = uniqueNames(originals, MAX_NAME_LENGTH - prefix.length);
  const out = new Map<string, string>();
  for (const o of originals) out.set(o, prefix + local.get(o)!);
  return out;
}
