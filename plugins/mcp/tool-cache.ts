/**
 * Each server's tool list, kept on disk (`.agent/cache/mcp/<server>.json`, or the user's cache folder when the
 * project has no `.agent/`: `cacheDir`) so a host can register a
 * server's tools without starting it: `agent call read_file` then starts no server at all, and the
 * first model request goes out with the cached definitions while servers connect in the background.
 *
 * An entry is only used for the exact server it was written for: its key hashes what defines the
 * server (transport, command, args, cwd, the names of its env and headers, url, the tool filters)
 * and the size and modification time of any file the command line names (a rebuilt or upgraded
 * local server has a new key). Nothing here decides a permission on its own: what is registered from
 * the cache is replaced by the live definition as soon as the server lists its tools (manager.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import { projectFolderName, userCacheDir, writeFileAtomic } from "../../kit/index.js";
import type { ServerConfig } from "./config.js";

/** Bumped when the file's shape changes: older entries are then ignored. */
const FORMAT = 1;

export interface CachedTools {
  key: string;
  savedAt: string;
  server?: { name: string; version: string };
  /** The server offers resources (the host adds its `…__resources` tool). */
  resources: boolean;
  tools: Tool[];
  /** The revision the server spoke (`2026-07-28`: stateless, `server/discover`; a 2025 one: the initialize handshake). */
  protocol?: { version: string; era: ProtocolEra };
}

export type ProtocolEra = "modern" | "legacy";

/**
 * The project's `.agent/cache/mcp/` when it has `.agent/`; else a folder of its own in the user's cache
 * (`~/.cache/agent-host/mcp/<project>-<hash>/`), so listing a folder's tools leaves no `.agent/` in it. Decided
 * when the plugin sets up: an `agent run` whose audit log creates `.agent/` keeps this host's cache where it began.
 */
export function cacheDir(projectRoot: string): string {
  if (existsSync(path.join(projectRoot, ".agent"))) return path.join(projectRoot, ".agent", "cache", "mcp");
  return userCacheFolder(projectRoot);
}

/**
 * Where an entry may be read from: `cacheDir`, then the user's folder when that is `.agent/` (the first command in
 * a folder wrote there before its audit log created `.agent/`: what it learnt, e.g. that a server speaks only the
 * 2025 handshake, is not lost to the next command).
 */
export function cacheReadDirs(projectRoot: string): string[] {
  const dir = cacheDir(projectRoot);
  const user = userCacheFolder(projectRoot);
  return dir === user ? [dir] : [dir, user];
}

function userCacheFolder(projectRoot: string): string {
  return path.join(userCacheDir(), "mcp", projectFolderName(projectRoot));
}

/** A file name for the server that no name can escape (`../x`, `a/b`): its name made safe, plus a hash of it. */
function cacheFile(dir: string, server: string): string {
  const safe = server.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 40);
  return path.join(dir, `${safe}-${createHash("sha256").update(server).digest("hex").slice(0, 8)}.json`);
}

/** Size and mtime of each file the command line names (relative to the server's cwd): the server's code, usually. */
function filesNamed(config: ServerConfig, root: string): string[] {
  const cwd = config.cwd ?? root;
  const out: string[] = [];
  for (const part of [config.command ?? "", ...config.args]) {
    if (!part || part.startsWith("-") || part.length > 1024) continue;
    try {
      const st = statSync(path.resolve(cwd, part));
      if (st.isFile()) out.push(`${part}:${st.size}:${Math.round(st.mtimeMs)}`);
    } catch {
      // not a file: an argument, a package name, a flag value
    }
  }
  return out;
}

export function cacheKey(config: ServerConfig, root: string): string {
  const defining = {
    format: FORMAT,
    transport: config.transport,
    command: config.command,
    args: config.args,
    cwd: config.cwd ?? root,
    env: Object.keys(config.env).sort(),
    url: config.url,
    headers: Object.keys(config.headers).sort(),
    include: config.includeTools,
    exclude: config.excludeTools,
    files: filesNamed(config, root),
  };
  return createHash("sha256").update(JSON.stringify(defining)).digest("hex");
}

/** The cached list for this exact server, or undefined (none, another key, unreadable: all mean "ask the server"). */
export function readCachedTools(dirs: string | readonly string[], config: ServerConfig, key: string): CachedTools | undefined {
  for (const dir of typeof dirs === "string" ? [dirs] : dirs) {
    const entry = readEntry(dir, config, key);
    if (entry) return entry;
  }
  return undefined;
}

function readEntry(dir: string, config: ServerConfig, key: string): CachedTools | undefined {
  try {
    const data = JSON.parse(readFileSync(cacheFile(dir, config.name), "utf8")) as Partial<CachedTools>;
    if (data.key !== key || !Array.isArray(data.tools)) return undefined;
    const protocol = typeof data.protocol?.version === "string" && (data.protocol.era === "modern" || data.protocol.era === "legacy") ? data.protocol : undefined;
    return { key, savedAt: String(data.savedAt), server: data.server, resources: data.resources === true, tools: data.tools, ...(protocol ? { protocol } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Written atomically (a reader never sees half a file), mode 0600 whatever the umask (what a server
 * says about itself is this user's business); a failure to write only costs the next start its head start.
 */
export function writeCachedTools(dir: string, config: ServerConfig, entry: CachedTools): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(cacheFile(dir, config.name), `${JSON.stringify(entry)}\n`, 0o600);
  } catch {
    // read-only project, full disk: the cache is an optimisation
  }
}

/** A cached legacy verdict is trusted for a day: past that the server is probed again (it may have been upgraded). */
export const LEGACY_VERDICT_MS = 24 * 60 * 60 * 1000;

/** `legacy` when the cache says, recently, that the server speaks only the 2025 handshake. */
export function knownEra(entry: CachedTools | undefined, now = Date.now()): "legacy" | undefined {
  if (entry?.protocol?.era !== "legacy") return undefined;
  const age = now - Date.parse(entry.savedAt);
  return age >= 0 && age < LEGACY_VERDICT_MS ? "legacy" : undefined;
}
