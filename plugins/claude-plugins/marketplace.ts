/**
 * Marketplaces (`.claude-plugin/marketplace.json`): added from a folder (read in place), a git URL or
 * `owner/repo` (cloned with the user's git into `<config home>/plugins/marketplaces/<name>`), listed,
 * updated (`git fetch` + reset to the remote's newest), removed (with the plugins installed from it).
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../core/index.js";
import { gitClone, gitUpdate, gitUrlOf } from "./fetch.js";
import { isDir, isPlainObject, readJsonObject } from "./package.js";
import { clonesDir, readMarketplaces, updateMarketplaces, type KnownMarketplace, type MarketplaceSource } from "./store.js";

export interface MarketplaceEntry {
  name: string;
  source: unknown;
  description?: string;
  version?: string;
  strict?: boolean;
  [key: string]: unknown;
}

export interface Marketplace {
  name: string;
  /** The folder the marketplace file is in the `.claude-plugin/` of. */
  root: string;
  /** `metadata.pluginRoot`: where relative plugin sources start. */
  pluginRoot: string;
  plugins: MarketplaceEntry[];
}

export const MARKETPLACE_FILE = path.join(".claude-plugin", "marketplace.json");
const NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;

export function readMarketplace(root: string): Marketplace {
  const file = path.join(root, MARKETPLACE_FILE);
  if (!existsSync(file)) throw new AgentError("E_USAGE", `${root} is not a marketplace: it has no ${MARKETPLACE_FILE}`);
  const data = readJsonObject(file);
  if (typeof data.name !== "string" || !NAME_RE.test(data.name)) throw new AgentError("E_CONFIG", `${file}: "name" must be a marketplace name (letters, digits, _ . -)`);
  if (!Array.isArray(data.plugins)) throw new AgentError("E_CONFIG", `${file}: "plugins" must be a list`);
  const bad = data.plugins.find((p) => !isPlainObject(p) || typeof p.name !== "string" || !NAME_RE.test(p.name) || p.source === undefined);
  // A name becomes a folder of the cache: one that is not a plain name could lead anywhere.
  if (bad !== undefined) throw new AgentError("E_CONFIG", `${file}: every plugin needs a "name" (letters, digits, _ . -) and a "source"; not ${JSON.stringify(bad).slice(0, 120)}`);
  const plugins = data.plugins as MarketplaceEntry[];
  const meta = isPlainObject(data.metadata) ? data.metadata : {};
  const pluginRoot = typeof meta.pluginRoot === "string" ? path.resolve(root, meta.pluginRoot) : root;
  return { name: data.name, root, pluginRoot, plugins };
}

/** A local bare or working git repository given as a path is a git source too (cloned, so it updates). */
function isGitRepo(dir: string): boolean {
  return isDir(path.join(dir, ".git")) || (existsSync(path.join(dir, "HEAD")) && isDir(path.join(dir, "objects")));
}

/** Where `spec` points: a folder holding a marketplace, a git repository or URL, or `owner/repo`. */
export function sourceOf(spec: string, cwd: string): MarketplaceSource {
  const local = path.resolve(cwd, spec.split("#")[0]);
  if (existsSync(local)) {
    if (existsSync(path.join(local, MARKETPLACE_FILE))) return { source: "directory", path: local };
    if (isGitRepo(local)) return { source: "git", url: local, ...(spec.includes("#") ? { ref: spec.split("#")[1] } : {}) };
    throw new AgentError("E_USAGE", `${local} has no ${MARKETPLACE_FILE} and is not a git repository`);
  }
  const git = gitUrlOf(spec);
  if (!git) throw new AgentError("E_USAGE", `"${spec}" is not a folder, a git URL or owner/repo`);
  return { source: "git", ...git };
}

export async function addMarketplace(home: string, spec: string, cwd: string): Promise<KnownMarketplace> {
  const source = sourceOf(spec, cwd);
  let location: string;
  if (source.source === "directory") location = source.path;
  else {
    mkdirSync(clonesDir(home), { recursive: true });
    location = await gitClone(source.url, clonesDir(home), source.ref);
  }
  let market: Marketplace;
  try {
    market = readMarketplace(location);
  } catch (err) {
    if (source.source === "git") rmSync(location, { recursive: true, force: true });
    throw err;
  }
  const known = readMarketplaces(home)[market.name];
  if (known) {
    if (source.source === "git") rmSync(location, { recursive: true, force: true });
    throw new AgentError("E_USAGE", `a marketplace named ${market.name} is already added (from ${describeSource(known.source)}); remove it first`);
  }
  if (source.source === "git") {
    const final = path.join(clonesDir(home), market.name);
    rmSync(final, { recursive: true, force: true });
    renameSync(location, final);
    location = final;
  }
  const entry: KnownMarketplace = { name: market.name, source, location, addedAt: new Date().toISOString() };
  updateMarketplaces(home, (all) => {
    all[market.name] = entry;
  });
  return entry;
}

export function getMarketplace(home: string, name: string): { known: KnownMarketplace; market: Marketplace } {
  const known = readMarketplaces(home)[name];
  if (!known) {
    const names = Object.keys(readMarketplaces(home));
    throw new AgentError("E_USAGE", `no marketplace named ${name}${names.length ? ` (known: ${names.join(", ")})` : ""}; add it with: agent plugin marketplace add <path | git URL | owner/repo>`);
  }
  return { known, market: readMarketplace(known.location) };
}

export async function updateMarketplace(home: string, name: string): Promise<KnownMarketplace> {
  const { known } = getMarketplace(home, name);
  if (known.source.source === "git") await gitUpdate(known.location, known.source.ref);
  readMarketplace(known.location);
  const updated = { ...known, updatedAt: new Date().toISOString() };
  updateMarketplaces(home, (all) => {
    all[name] = updated;
  });
  return updated;
}

export function removeMarketplace(home: string, name: string): KnownMarketplace {
  const { known } = getMarketplace(home, name);
  updateMarketplaces(home, (all) => {
    delete all[name];
  });
  if (known.source.source === "git") rmSync(known.location, { recursive: true, force: true });
  return known;
}

export function describeSource(source: MarketplaceSource): string {
  return source.source === "directory" ? source.path : `${source.url}${source.ref ? `#${source.ref}` : ""}`;
}
