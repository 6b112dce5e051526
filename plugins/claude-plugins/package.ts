/**
 * Reading a plugin folder: a Claude Code plugin (`.claude-plugin/plugin.json`, default folders
 * `commands/`, `agents/`, `skills/`, `hooks/hooks.json`, `.mcp.json`) or an Agent Plugins 1.0 package
 * (a root `plugin.json`, `skills/`, `mcp.json`). What it ships is listed here, parts agent-host does not
 * run included (`unsupported`), so nothing is dropped without a word.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export type PackageKind = "claude" | "agent-plugins";

export interface UserConfigField {
  type?: string;
  title?: string;
  description?: string;
  sensitive?: boolean;
  required?: boolean;
  default?: unknown;
}

export interface PluginPackage {
  kind: PackageKind;
  dir: string;
  name: string;
  version?: string;
  description?: string;
  /** Folders of Markdown commands. */
  commandDirs: string[];
  /** Single command files named by the manifest (loaded from a folder of their own). */
  commandFiles: string[];
  /** Folders of skill folders, and skill folders named one by one. */
  skillDirs: string[];
  skillFolders: string[];
  /** Subagent definitions (`agents/*.md`): not run yet (subagents). */
  agentFiles: string[];
  /** Claude Code's `hooks` shape, merged from every hooks file. */
  hooks: Record<string, unknown[]>;
  mcpServers: Record<string, Record<string, unknown>>;
  userConfig: Record<string, UserConfigField>;
  /** What the package ships that agent-host does not run, one line each. */
  unsupported: string[];
  /** Files that could not be read or parsed (the rest still loads). */
  problems: string[];
}

/** Manifest keys of Claude Code's plugin.json that only describe the plugin. */
const METADATA = ["$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "category", "tags", "strict", "source", "id"];
const HANDLED = ["commands", "agents", "skills", "hooks", "mcpServers", "userConfig"];
/** Parts of a Claude Code plugin agent-host has nothing for, and what to call them. */
const UNSUPPORTED_KEYS: Record<string, string> = {
  outputStyles: "output styles",
  lspServers: "LSP servers",
  themes: "themes",
  monitors: "monitors",
  channels: "channels",
  settings: "default settings",
  statusLine: "status line",
};
const UNSUPPORTED_PATHS: Record<string, string> = {
  "output-styles": "output styles (output-styles/)",
  ".lsp.json": "LSP servers (.lsp.json)",
  themes: "themes (themes/)",
  monitors: "monitors (monitors/)",
  "settings.json": "default settings (settings.json)",
  bin: "executables on PATH (bin/)",
};

export function packageKind(dir: string): PackageKind | undefined {
  if (isFile(path.join(dir, ".claude-plugin", "plugin.json"))) return "claude";
  if (isFile(path.join(dir, "plugin.json"))) return "agent-plugins";
  return undefined;
}

export function readPackage(dir: string): PluginPackage {
  const kind = packageKind(dir);
  if (!kind) throw new Error(`${dir} is not a plugin: it has no .claude-plugin/plugin.json and no plugin.json`);
  const manifestFile = kind === "claude" ? path.join(dir, ".claude-plugin", "plugin.json") : path.join(dir, "plugin.json");
  const manifest = readJsonObject(manifestFile);
  const name = typeof manifest.name === "string" && manifest.name ? manifest.name : path.basename(dir);
  if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(name)) throw new Error(`${manifestFile}: name "${name}" is not a plugin name (letters, digits, _ . - only)`);
  const pkg: PluginPackage = {
    kind,
    dir,
    name,
    ...(typeof manifest.version === "string" ? { version: manifest.version } : {}),
    ...(typeof manifest.description === "string" ? { description: manifest.description } : {}),
    commandDirs: [],
    commandFiles: [],
    skillDirs: [],
    skillFolders: [],
    agentFiles: [],
    hooks: {},
    mcpServers: {},
    userConfig: {},
    unsupported: [],
    problems: [],
  };
  if (kind === "claude") readClaudeParts(pkg, manifest);
  else readAgentPluginParts(pkg, manifest);
  return pkg;
}

function readClaudeParts(pkg: PluginPackage, manifest: Record<string, unknown>): void {
  const { dir } = pkg;
  for (const p of [...defaultDir(dir, "commands"), ...paths(dir, manifest.commands)]) (isDir(p) ? pkg.commandDirs : pkg.commandFiles).push(p);
  pkg.commandDirs = unique(pkg.commandDirs);
  // Named skills replace the default folder (a marketplace's `strict: false` entry picks some of a repository's skills).
  const skills = manifest.skills !== undefined ? paths(dir, manifest.skills) : defaultDir(dir, "skills");
  for (const p of skills) (isFile(path.join(p, "SKILL.md")) ? pkg.skillFolders : pkg.skillDirs).push(p);
  for (const p of [...defaultDir(dir, "agents"), ...paths(dir, manifest.agents)]) pkg.agentFiles.push(...markdownFiles(p));
  pkg.agentFiles = unique(pkg.agentFiles);
  const hookSources: unknown[] = [...(isFile(path.join(dir, "hooks", "hooks.json")) ? [path.join(dir, "hooks", "hooks.json")] : [])];
  if (isPlainObject(manifest.hooks)) hookSources.push(manifest.hooks);
  else for (const p of paths(dir, manifest.hooks)) if (!hookSources.includes(p)) hookSources.push(p);
  for (const source of hookSources) addHooks(pkg, source);
  const serverSources: unknown[] = isFile(path.join(dir, ".mcp.json")) ? [path.join(dir, ".mcp.json")] : [];
  if (isPlainObject(manifest.mcpServers)) serverSources.push(manifest.mcpServers);
  else serverSources.push(...paths(dir, manifest.mcpServers));
  for (const source of serverSources) addServers(pkg, source);
  if (isPlainObject(manifest.userConfig)) pkg.userConfig = manifest.userConfig as Record<string, UserConfigField>;
  for (const [key, what] of Object.entries(UNSUPPORTED_KEYS)) if (manifest[key] !== undefined) pkg.unsupported.push(`${what} (plugin.json "${key}")`);
  for (const key of Object.keys(manifest)) {
    if (!METADATA.includes(key) && !HANDLED.includes(key) && !(key in UNSUPPORTED_KEYS)) pkg.unsupported.push(`plugin.json key "${key}"`);
  }
  for (const [rel, what] of Object.entries(UNSUPPORTED_PATHS)) if (existsSync(path.join(dir, rel))) pkg.unsupported.push(what);
}

/** Agent Plugins 1.0: skills and MCP servers; a client's own extension folder (reverse-DNS name) is not ours. */
function readAgentPluginParts(pkg: PluginPackage, manifest: Record<string, unknown>): void {
  const { dir } = pkg;
  pkg.skillDirs.push(...defaultDir(dir, "skills"));
  if (isFile(path.join(dir, "mcp.json"))) addServers(pkg, path.join(dir, "mcp.json"));
  for (const key of Object.keys(manifest)) {
    if (![...METADATA, "extensions"].includes(key)) pkg.unsupported.push(`plugin.json key "${key}" (not in Agent Plugins 1.0)`);
  }
  for (const e of safeReaddir(dir)) if (/^[a-z0-9-]+(\.[a-z0-9-]+){2,}$/i.test(e) && isDir(path.join(dir, e))) pkg.unsupported.push(`client extension ${e}/`);
}

function addHooks(pkg: PluginPackage, source: unknown): void {
  const value = typeof source === "string" ? tryRead(pkg, source) : source;
  if (value === undefined) return;
  // hooks.json is `{ "description", "hooks": { Event: [...] } }`; an inline manifest value may be the map itself.
  const map = isPlainObject(value) && isPlainObject(value.hooks) ? value.hooks : value;
  if (!isPlainObject(map)) {
    pkg.problems.push(`${typeof source === "string" ? source : "plugin.json hooks"}: not a hooks object`);
    return;
  }
  for (const [event, groups] of Object.entries(map)) {
    if (!Array.isArray(groups)) {
      pkg.problems.push(`hooks.${event}: not a list`);
      continue;
    }
    (pkg.hooks[event] ??= []).push(...groups);
  }
}

function addServers(pkg: PluginPackage, source: unknown): void {
  const value = typeof source === "string" ? tryRead(pkg, source) : source;
  if (value === undefined) return;
  // `.mcp.json` is `{ "mcpServers": {...} }`; Claude Code also takes the bare map.
  const map = isPlainObject(value) && isPlainObject(value.mcpServers) ? value.mcpServers : value;
  if (!isPlainObject(map)) return void pkg.problems.push(`${typeof source === "string" ? source : "plugin.json mcpServers"}: not a map of servers`);
  for (const [name, server] of Object.entries(map)) {
    if (name === "$schema") continue;
    if (isPlainObject(server)) pkg.mcpServers[name] = server;
    else pkg.problems.push(`MCP server "${name}": not an object`);
  }
}

function tryRead(pkg: PluginPackage, file: string): Record<string, unknown> | undefined {
  try {
    return readJsonObject(file);
  } catch (err) {
    pkg.problems.push((err as Error).message);
    return undefined;
  }
}

export function readJsonObject(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`${file} could not be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isPlainObject(value)) throw new Error(`${file} does not hold a JSON object`);
  return value;
}

/** A manifest path value (a string or a list of them), resolved inside the plugin; paths leaving it are dropped. */
function paths(dir: string, value: unknown): string[] {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  return list.map((p) => path.resolve(dir, p)).filter((p) => (p === dir || p.startsWith(dir + path.sep)) && existsSync(p));
}

function defaultDir(dir: string, name: string): string[] {
  const p = path.join(dir, name);
  return isDir(p) ? [p] : [];
}

function markdownFiles(p: string): string[] {
  if (isFile(p)) return p.endsWith(".md") ? [p] : [];
  return safeReaddir(p)
    .filter((e) => e.endsWith(".md"))
    .map((e) => path.join(p, e));
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

const unique = (list: string[]) => [...new Set(list)];

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isFile(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
}

export function isDir(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
