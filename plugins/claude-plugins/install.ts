/**
 * Installing a plugin from a marketplace: its source fetched (a folder of the marketplace, a git
 * repository, a subfolder of one, an npm package), copied into `<config home>/plugins/cache/`, hashed,
 * and recorded in the lock with what it adds. Updates are explicit: `update` fetches again, and one
 * that adds a hook command or a server asks again (`confirm`); a copy whose files changed since is not
 * loaded (format.ts) until updated or installed again.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../core/index.js";
import { gitCheckout, gitClone, gitUpdate, npmFetch } from "./fetch.js";
import { hashFolder } from "./hash.js";
import { getMarketplace, type Marketplace, type MarketplaceEntry } from "./marketplace.js";
import { isPlainObject, packageKind, readPackage, type PluginPackage } from "./package.js";
import { cacheDir, dataDirOf, readLock, updateLock, type LockEntry } from "./store.js";
import { notSupported, serverName } from "./to-plugin.js";

/** What installing a plugin adds: shown before the user's yes, and kept in the lock to compare on update. */
export interface Additions {
  commands: string[];
  skills: string[];
  agents: string[];
  hooks: string[];
  servers: string[];
  notSupported: string[];
}

export function additionsOf(pkg: PluginPackage): Additions {
  const hooks: string[] = [];
  for (const [event, groups] of Object.entries(pkg.hooks)) {
    for (const g of groups) {
      if (!isPlainObject(g) || !Array.isArray(g.hooks)) continue;
      for (const h of g.hooks) if (isPlainObject(h) && typeof h.command === "string") hooks.push(`${event}${typeof g.matcher === "string" && g.matcher ? `(${g.matcher})` : ""}: ${[h.command, ...(Array.isArray(h.args) ? h.args : [])].join(" ")}`);
    }
  }
  const servers = Object.entries(pkg.mcpServers).map(([name, s]) => `${serverName(pkg.name, name)}: ${typeof s.command === "string" ? [s.command, ...(Array.isArray(s.args) ? s.args : [])].join(" ") : String(s.url ?? "?")}`);
  const base = (p: string) => path.basename(p, ".md");
  return {
    commands: [...pkg.commandDirs.map((d) => `${pkg.name}:* (${path.relative(pkg.dir, d) || "."}/)`), ...pkg.commandFiles.map((f) => `${pkg.name}:${base(f)}`)],
    skills: [...pkg.skillDirs.map((d) => `${path.relative(pkg.dir, d) || "."}/`), ...pkg.skillFolders.map((d) => path.basename(d))],
    agents: pkg.agentFiles.map(base),
    hooks,
    servers,
    notSupported: notSupported(pkg),
  };
}

export function parseId(id: string): { name: string; marketplace: string } {
  const at = id.lastIndexOf("@");
  if (at <= 0 || at === id.length - 1) throw new AgentError("E_USAGE", `"${id}" is not <plugin>@<marketplace>`);
  return { name: id.slice(0, at), marketplace: id.slice(at + 1) };
}

export interface Fetched {
  dir: string;
  /** Where it came from, for the lock. */
  source: string;
}

/** The entry's source on this machine (git clones and npm installs go under `scratch`, removed by the caller). */
export async function fetchSource(market: Marketplace, entry: MarketplaceEntry, scratch: string): Promise<Fetched> {
  const s = entry.source;
  if (typeof s === "string") {
    const dir = path.resolve(s.startsWith("./") || s.startsWith("../") || s === "." ? market.root : market.pluginRoot, s);
    if (dir !== market.root && !dir.startsWith(market.root + path.sep)) throw new AgentError("E_CONFIG", `plugin ${entry.name}: source ${s} leaves the marketplace`);
    if (!existsSync(dir)) throw new AgentError("E_CONFIG", `plugin ${entry.name}: source ${s} does not exist in the marketplace`);
    return { dir, source: dir };
  }
  if (!isPlainObject(s) || typeof s.source !== "string") throw new AgentError("E_CONFIG", `plugin ${entry.name}: its source is neither a path nor an object with "source"`);
  const ref = typeof s.ref === "string" ? s.ref : undefined;
  const sha = typeof s.sha === "string" ? s.sha : undefined;
  const git = async (url: string, sub?: string): Promise<Fetched> => {
    const clone = await gitClone(url, scratch, ref);
    if (sha) await gitCheckout(clone, sha);
    const dir = sub ? path.resolve(clone, sub) : clone;
    if (!dir.startsWith(clone) || !existsSync(dir)) throw new AgentError("E_CONFIG", `plugin ${entry.name}: path ${sub} is not in ${url}`);
    return { dir, source: `${url}${sub ? `//${sub}` : ""}${ref ? `#${ref}` : ""}${sha ? `@${sha}` : ""}` };
  };
  if (s.source === "github" && typeof s.repo === "string") return git(`https://github.com/${s.repo}.git`);
  if ((s.source === "url" || s.source === "git") && typeof s.url === "string") return git(s.url);
  if (s.source === "git-subdir" && typeof s.url === "string" && typeof s.path === "string") return git(s.url, s.path);
  if (s.source === "npm" && typeof s.package === "string") {
    const spec = `${s.package}${typeof s.version === "string" ? `@${s.version}` : ""}`;
    const dir = await npmFetch(spec, scratch, typeof s.registry === "string" ? s.registry : undefined);
    return { dir, source: `npm:${spec}` };
  }
  throw new AgentError("E_CONFIG", `plugin ${entry.name}: source type "${s.source}" is not supported (relative path, github, url, git-subdir, npm)`);
}

/** Manifest keys a marketplace entry may give for a plugin without a manifest of its own (`strict: false`). */
const ENTRY_MANIFEST_KEYS = ["version", "description", "author", "commands", "agents", "skills", "hooks", "mcpServers", "userConfig", "license", "keywords", "homepage"];

/** Copy a fetched plugin into a new folder of the cache (without `.git`), with a manifest from the entry if it has none. */
function copyIntoCache(home: string, marketplace: string, entry: MarketplaceEntry, from: string): string {
  const parent = path.join(cacheDir(home), marketplace, entry.name);
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, `${String(entry.version ?? "0").replace(/[^\w.-]/g, "_")}-`));
  cpSync(from, dir, { recursive: true, verbatimSymlinks: true, filter: (src) => path.basename(src) !== ".git" });
  if (!packageKind(dir)) {
    const manifest: Record<string, unknown> = { name: entry.name };
    for (const k of ENTRY_MANIFEST_KEYS) if (entry[k] !== undefined) manifest[k] = entry[k];
    mkdirSync(path.join(dir, ".claude-plugin"), { recursive: true });
    writeFileSync(path.join(dir, ".claude-plugin", "plugin.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return dir;
}

export interface Prepared {
  id: string;
  entry: LockEntry;
  pkg: PluginPackage;
  additions: Additions;
  /** The previous entry, when this replaces one. */
  previous?: LockEntry;
  /** Drop the new copy (the user said no). */
  discard(): void;
}

/** Fetch, copy and hash a plugin; nothing is recorded until `commit`. */
export async function preparePlugin(home: string, id: string, options: { fetchMarketplace?: boolean } = {}): Promise<Prepared> {
  const { name, marketplace } = parseId(id);
  const { known, market: before } = getMarketplace(home, marketplace);
  let market = before;
  if (options.fetchMarketplace && known.source.source === "git") {
    await gitUpdate(known.location, known.source.ref);
    market = getMarketplace(home, marketplace).market;
  }
  const entry = market.plugins.find((p) => p.name === name);
  if (!entry) throw new AgentError("E_USAGE", `marketplace ${marketplace} has no plugin ${name} (it has: ${market.plugins.map((p) => p.name).join(", ") || "none"})`);
  mkdirSync(cacheDir(home), { recursive: true });
  const scratch = mkdtempSync(path.join(cacheDir(home), ".fetch-"));
  let dir: string;
  let source: string;
  try {
    const fetched = await fetchSource(market, entry, scratch);
    source = fetched.source;
    dir = copyIntoCache(home, marketplace, entry, fetched.dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  let pkg: PluginPackage;
  try {
    pkg = readPackage(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const additions = additionsOf(pkg);
  const previous = readLock(home).plugins[id];
  const now = new Date().toISOString();
  const lockEntry: LockEntry = {
    id,
    name,
    marketplace,
    ...(pkg.version ? { version: pkg.version } : {}),
    path: dir,
    sha256: hashFolder(dir),
    source,
    installedAt: previous?.installedAt ?? now,
    ...(previous ? { updatedAt: now } : {}),
    enabled: previous?.enabled ?? true,
    hooks: additions.hooks,
    servers: additions.servers,
    ...(previous?.userConfig ? { userConfig: previous.userConfig } : {}),
  };
  return { id, entry: lockEntry, pkg, additions, ...(previous ? { previous } : {}), discard: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Hook commands and servers the new copy adds over the one the user said yes to. */
export function newlyAdded(p: Prepared): string[] {
  if (!p.previous) return [];
  return [...p.additions.hooks.filter((h) => !p.previous!.hooks.includes(h)).map((h) => `hook ${h}`), ...p.additions.servers.filter((s) => !p.previous!.servers.includes(s)).map((s) => `server ${s}`)];
}

/** Record the prepared copy in the lock; the copy it replaces is removed. */
export function commitPlugin(home: string, p: Prepared, changes: Partial<LockEntry> = {}): LockEntry {
  const entry = { ...p.entry, ...changes };
  updateLock(home, (lock) => {
    lock.plugins[p.id] = entry;
  });
  if (p.previous && path.resolve(p.previous.path) !== path.resolve(entry.path)) rmSync(p.previous.path, { recursive: true, force: true });
  return entry;
}

export function uninstallPlugin(home: string, id: string, keepData: boolean): LockEntry {
  const entry = readLock(home).plugins[id];
  if (!entry) throw new AgentError("E_USAGE", `plugin ${id} is not installed (agent plugin list shows what is)`);
  updateLock(home, (lock) => {
    delete lock.plugins[id];
  });
  rmSync(entry.path, { recursive: true, force: true });
  if (!keepData) rmSync(dataDirOf(home, id), { recursive: true, force: true });
  return entry;
}

/** Every installed plugin of a marketplace (removing the marketplace uninstalls them). */
export function installedFrom(home: string, marketplace: string): LockEntry[] {
  return Object.values(readLock(home).plugins).filter((e) => e.marketplace === marketplace);
}
