/**
 * The user's plugin folder (`<config home>/plugins/`): `lock.json` records every installed plugin with
 * the sha256 of its files; `marketplaces.json` the known marketplaces; `cache/` the installed copies,
 * `marketplaces/` cloned marketplaces, `data/` each plugin's data folder (kept across updates). Both
 * JSON files are changed under a lock and replaced atomically, 0600 (userConfig values may be secrets).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { SECRET_FILE_MODE, updateFileLocked } from "../../kit/index.js";
import { isPlainObject } from "./package.js";

export interface LockEntry {
  /** `name@marketplace`. */
  id: string;
  name: string;
  marketplace: string;
  version?: string;
  /** The installed copy. */
  path: string;
  /** sha256 of the installed copy's files (hash.ts). */
  sha256: string;
  /** Where it came from (the marketplace entry's source, resolved). */
  source: string;
  installedAt: string;
  updatedAt?: string;
  /** Enabled for the user (every project); a project's settings may enable or disable it there. */
  enabled: boolean;
  /** The hook command lines and server command lines the user said yes to. */
  hooks: string[];
  servers: string[];
  userConfig?: Record<string, string>;
}

export interface Lock {
  version: 1;
  plugins: Record<string, LockEntry>;
}

export type MarketplaceSource = { source: "directory"; path: string } | { source: "git"; url: string; ref?: string };

export interface KnownMarketplace {
  name: string;
  source: MarketplaceSource;
  /** The folder holding `.claude-plugin/marketplace.json` (the directory, or the clone). */
  location: string;
  addedAt: string;
  updatedAt?: string;
}

export const pluginsHome = (home: string) => path.join(home, "plugins");
export const lockFile = (home: string) => path.join(pluginsHome(home), "lock.json");
export const marketplacesFile = (home: string) => path.join(pluginsHome(home), "marketplaces.json");
/** Which installed copies were last found whole, by their files' metadata (format.ts): a cache, safe to delete. */
export const verifiedFile = (home: string) => path.join(pluginsHome(home), "verified.json");
export const cacheDir = (home: string) => path.join(pluginsHome(home), "cache");
export const clonesDir = (home: string) => path.join(pluginsHome(home), "marketplaces");
export const dataDirOf = (home: string, id: string) => path.join(pluginsHome(home), "data", id.replace(/[^a-zA-Z0-9_.-]/g, "-"));

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, "utf8"));
    return isPlainObject(v) ? v : {};
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix or remove it`);
  }
}

export function readLock(home: string): Lock {
  const raw = readJson(lockFile(home));
  return { version: 1, plugins: isPlainObject(raw.plugins) ? (raw.plugins as Record<string, LockEntry>) : {} };
}

export function updateLock(home: string, change: (lock: Lock) => void): Lock {
  let result: Lock = { version: 1, plugins: {} };
  mkdirSync(pluginsHome(home), { recursive: true, mode: 0o700 });
  updateFileLocked(
    lockFile(home),
    (current) => {
      const raw = current ? (JSON.parse(current) as Partial<Lock>) : {};
      result = { version: 1, plugins: isPlainObject(raw.plugins) ? (raw.plugins as Record<string, LockEntry>) : {} };
      change(result);
      return `${JSON.stringify(result, null, 2)}\n`;
    },
    SECRET_FILE_MODE,
  );
  return result;
}

export function readMarketplaces(home: string): Record<string, KnownMarketplace> {
  return readJson(marketplacesFile(home)) as Record<string, KnownMarketplace>;
}

export function updateMarketplaces(home: string, change: (all: Record<string, KnownMarketplace>) => void): void {
  mkdirSync(pluginsHome(home), { recursive: true, mode: 0o700 });
  updateFileLocked(
    marketplacesFile(home),
    (current) => {
      const all = current ? (JSON.parse(current) as Record<string, KnownMarketplace>) : {};
      change(all);
      return `${JSON.stringify(all, null, 2)}\n`;
    },
    SECRET_FILE_MODE,
  );
}

/** The lock entry whose installed copy is `dir`, if any. */
export function entryAt(lock: Lock, dir: string): LockEntry | undefined {
  return Object.values(lock.plugins).find((e) => path.resolve(e.path) === path.resolve(dir));
}

export function insideCache(home: string, dir: string): boolean {
  const rel = path.relative(cacheDir(home), path.resolve(dir));
  return !!rel && !rel.startsWith("..") && !path.isAbsolute(rel);
}

/** The metadata fingerprint of a copy whose content last hashed to `sha256`, if recorded. */
export function verifiedFingerprint(home: string, id: string, sha256: string): string | undefined {
  const entry = readJson(verifiedFile(home))[id];
  return isPlainObject(entry) && entry.sha256 === sha256 && typeof entry.fingerprint === "string" ? entry.fingerprint : undefined;
}

export function recordVerified(home: string, id: string, sha256: string, fingerprint: string): void {
  mkdirSync(pluginsHome(home), { recursive: true, mode: 0o700 });
  updateFileLocked(verifiedFile(home), (current) => {
    let all: Record<string, unknown> = {};
    try {
      all = current ? (JSON.parse(current) as Record<string, unknown>) : {};
    } catch {
      // a damaged cache is rebuilt
    }
    all[id] = { sha256, fingerprint };
    return `${JSON.stringify(all, null, 2)}\n`;
  });
}
