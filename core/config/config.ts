/**
 * Config loading: the project's config file found from the cwd up to the project root and loaded whatever
 * its format (kit/fs/config-file.ts); the user config (`~/.config/agent/config.{json,yaml}`) merges under
 * it. Every file is validated on its own so errors name the file. Keys core does not know are kept per file for the
 * plugins that own them (config-sections.ts); files other tools share (`.mcp.json`) are read by the
 * plugin they belong to, through the `config` hook; another tool's settings files by a config source
 * (config-source.ts: Claude Code's, plugins/claude-settings), with the files, before any plugin's setup.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { AgentConfigSchema, CORE_CONFIG_KEYS, type AgentConfig } from "./config-schema.js";
import { MAX_CONFIG_DEPTH, shortPath, tooDeep } from "../../kit/text/depth.js";
import { ConfigError } from "../../kit/errors.js";
import { findProjectMarkerDir, loadConfigFile, locateProjectConfig } from "../../kit/fs/config-file.js";
import { localSettingsPath } from "../../kit/fs/local-settings.js";
import { isLocalPath } from "../../kit/plugin-resolve.js";
import { defaultUserConfigDir } from "../../kit/fs/user-config-dir.js";
import type { ConfigOrigin, ConfigSource, ConfigSourceFile } from "./config-source.js";
import { FolderTrust } from "./trust.js";
import { fileDigest } from "../../kit/fs/trust-store.js";
import { narrowFolderConfig } from "./trust-config.js";
import { isPlainObject } from "../../kit/text/plain-object.js";
import type { z } from "zod";
import { closestNames } from "../../kit/text/suggest.js";

/** A top-level key core does not know, as one file gave it: checked later by the plugin that owns it. */
export interface RawSection {
  file: string;
  key: string;
  value: unknown;
  /** From a file written for another tool (a config source's: Claude Code's settings): with no owner, only reported. */
  optional?: boolean;
  /** From a file of the project folder (not the user's own): applies only as far as the folder's trust admits it. */
  folder?: boolean;
}

export interface LoadedConfig {
  /** Core's keys, merged. */
  config: AgentConfig;
  /** Files read, in merge order (config sources' files, then the user config, then the project config, then policy files). */
  files: string[];
  /** Which file gave each part of the config, in merge order. */
  origins: ConfigOrigin[];
  /** Parts of files that were deliberately not applied (reported as warnings). */
  warnings: string[];
  /** Keys no core schema covers, per file in merge order, for plugin sections. */
  sections: RawSection[];
  /** The file that listed each plugin entry (by its name), for messages about its options. */
  pluginOrigins: Map<string, string>;
  /** Folder of the project config file, or the project root when there is none. */
  configDir: string;
  /** Where npm plugin names are resolved from, in order. */
  pluginBaseDirs: string[];
  /** The project root: the config file's folder, else the nearest folder with .git or package.json, else the cwd. */
  projectRoot: string;
  /** The user config folder, when user config is read. */
  userConfigDir: string | undefined;
  /** The project folder's trust: what of its files was admitted, what was held back. */
  trust: FolderTrust;
}

export interface LoadConfigOptions {
  cwd: string;
  /** Extra config merged over the files (e.g. from `createHost({ config })`). */
  overrides?: AgentConfig;
  /** Folder of the user config; default `$AGENT_CONFIG_HOME` or `$XDG_CONFIG_HOME/agent` or `~/.config/agent`. `false` skips it. */
  userConfigDir?: string | false;
  /** Read files at all (project and user config); default true. */
  readFiles?: boolean;
  /** true: the folder is trusted for this load; false: never; default the user's decision or `AGENT_TRUST`. */
  trust?: boolean;
  /** Other tools' settings files read as config (`createHost({ configSources })`), in order. */
  sources?: readonly ConfigSource[];
}

/** Turn zod issues into `key.path: message` lines. */
export function zodIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
}

function formatPath(p: readonly PropertyKey[]): string {
  let out = "";
  for (const k of p) {
    if (typeof k === "number") out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}

/** A file's config: core's keys validated (paths made absolute), the rest kept raw. */
interface FileConfig {
  core: AgentConfig;
  extra: Record<string, unknown>;
}

async function readAndValidate(file: string): Promise<FileConfig> {
  let raw = await loadConfigFile(file);
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(file, [{ path: "", message: `expected an object, got ${Array.isArray(raw) ? "an array" : typeof raw}` }]);
  }
  return splitAndValidate(raw as Record<string, unknown>, file, path.dirname(file));
}

function splitAndValidate(raw: Record<string, unknown>, file: string, dir: string): FileConfig {
  const deep = tooDeep(raw, MAX_CONFIG_DEPTH);
  if (deep) throw new ConfigError(file, [{ path: shortPath(deep), message: `nested more than ${MAX_CONFIG_DEPTH} levels deep; no config needs that (is the file generated wrongly?)` }]);
  const core: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) (CORE_CONFIG_KEYS.includes(k) ? core : extra)[k] = v;
  const parsed = AgentConfigSchema.safeParse(core);
  if (!parsed.success) throw new ConfigError(file, zodIssues(parsed.error));
  return { core: absolutize(parsed.data, dir), extra };
}

/** Relative paths in a config file are relative to that file: make them absolute before merging. */
function absolutize(config: AgentConfig, dir: string): AgentConfig {
  const rel = (p: string) => (isLocalPath(p) ? path.resolve(dir, p) : p);
  const out: AgentConfig = { ...config };
  if (config.plugins) {
    out.plugins = config.plugins.map((entry) => {
      if (typeof entry === "string") return rel(entry);
      if (Array.isArray(entry)) return [rel(entry[0]), entry[1]] as [string, Record<string, unknown>];
      return entry;
    });
  }
  if (config.disabledPlugins) out.disabledPlugins = config.disabledPlugins.map(rel);
  if (config.workspace?.roots) out.workspace = { ...config.workspace, roots: config.workspace.roots.map((r) => path.resolve(dir, r)) };
  return out;
}

const CONCAT_PATHS = new Set(["plugins", "disabledPlugins", "permissions.allow", "permissions.ask", "permissions.deny", "workspace.roots", "sandbox.allowWrite", "sandbox.denyRead", "sandbox.network"]);

const STICKY_TRUE = new Set(["permissions.disableBypass"]);

/** Deep-merge `over` onto `under`: objects merge, listed arrays concatenate (deduplicated), everything else is replaced. */
export function mergeConfig(under: AgentConfig, over: AgentConfig, prefix = ""): AgentConfig {
  const out: Record<string, unknown> = { ...under };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const keyPath = prefix ? `${prefix}.${key}` : key;
    const prev = out[key];
    if (Array.isArray(value) && Array.isArray(prev) && CONCAT_PATHS.has(keyPath)) {
      const seen = new Set<string>();
      out[key] = [...prev, ...value].filter((v) => {
        if (typeof v !== "string") return true;
        if (seen.has(v)) return false;
        seen.add(v);
        return true;
      });
    } else if (isPlainObject(value) && isPlainObject(prev) && !isPluginLike(value)) {
      out[key] = mergeConfig(prev as AgentConfig, value as AgentConfig, keyPath);
    } else if (STICKY_TRUE.has(keyPath) && prev === true) {
      // A safety switch one file turned on stays on: a later file (a cloned folder's) cannot turn it off.
    } else {
      out[key] = value;
    }
  }
  return out as AgentConfig;
}

export { isPlainObject };
function isPluginLike(v: Record<string, unknown>): boolean {
  return typeof v.run === "function" || typeof v.setup === "function";
}

async function readUserConfig(dir: string): Promise<{ file: string; fc: FileConfig } | undefined> {
  for (const name of ["config.json", "config.yaml", "config.yml"]) {
    const file = path.join(dir, name);
    if (existsSync(file)) return { file, fc: await readAndValidate(file) };
  }
  return undefined;
}

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const cwd = path.resolve(options.cwd);
  const readFiles = options.readFiles !== false;
  const located = readFiles ? locateProjectConfig(cwd) : undefined;
  const projectFile = located?.configFile;
  const stopDir = located?.projectRoot ?? findProjectMarkerDir(cwd) ?? cwd;

  const files: string[] = [];
  let config: AgentConfig = {};
  const sections: RawSection[] = [];
  const origins: ConfigOrigin[] = [];
  const warnings: string[] = [];
  const pluginOrigins = new Map<string, string>();
  const pluginBaseDirs: string[] = [];
  const take = (file: string, fc: FileConfig, sourced?: ConfigOrigin[], folder?: boolean) => {
    if (!file.startsWith("createHost(")) files.push(file);
    config = mergeConfig(config, fc.core);
    // Keys from a config source's files that no plugin reads are only reported: the user did not write them for us.
    for (const [key, value] of Object.entries(fc.extra)) sections.push({ file, key, value, ...(sourced ? { optional: true } : {}), ...(folder ? { folder } : {}) });
    origins.push(...(sourced ?? originsOf(file, fc)));
    for (const entry of fc.core.plugins ?? []) {
      const name = typeof entry === "string" ? entry : Array.isArray(entry) ? entry[0] : (entry as { name: string }).name;
      pluginOrigins.set(name, file);
    }
  };

  const userDir = !readFiles ? false : options.userConfigDir === undefined ? defaultUserConfigDir() : options.userConfigDir;
  const configDir = projectFile ? path.dirname(projectFile) : stopDir;
  const trust = new FolderTrust({ folder: configDir, userConfigDir: userDir || undefined, override: options.trust });
  const ours: { file: string; fc: FileConfig; folder?: boolean }[] = [];
  if (userDir) {
    const user = await readUserConfig(userDir);
    if (user) ours.push(user);
  }
  // What the folder's own files say applies as far as its trust admits: a folder may narrow, never widen.
  const userMode = ours[0]?.fc.core.permissions?.mode;
  const userSandbox = ours[0]?.fc.core.sandbox;
  const folderFile = async (file: string) => {
    const fc = await readAndValidate(file);
    ours.push({ file, folder: true, fc: { core: narrowFolderConfig(fc.core, file, trust, userMode, userSandbox), extra: fc.extra } });
  };
  // A code config file runs when it is read: it is read only in a trusted folder, and only as the user last saw it.
  if (projectFile && (!isCodeConfig(projectFile) || admitCode(trust, projectFile))) await folderFile(projectFile);
  // This machine's own settings for the project (`always for this project`, `agent mcp add -s local`): over the shared file.
  const local = localSettingsPath(configDir);
  if (readFiles && isFile(local)) {
    // As agent-host last wrote it on the user's answer (`always for this project`, `agent mcp add -s local`): theirs.
    trust.vouchIfWritten(local);
    await folderFile(local);
  }
  const where = "createHost({ config })";
  if (options.overrides) ours.push({ file: where, fc: splitAndValidate(options.overrides as Record<string, unknown>, where, cwd) });

  // Config sources' files merge under agent-host's own files (their policy files over them), unless one of those says compat.<name>: false.
  const sourced: ConfigSourceFile[] = [];
  warnings.push(...unknownCompatNames(ours, options.sources ?? []));
  for (const source of readFiles ? (options.sources ?? []) : []) {
    if (ours.reduce((on, o) => o.fc.core.compat?.[source.name] ?? on, true)) sourced.push(...(await source.read({ projectRoot: configDir, userFiles: !!userDir })));
  }
  const takeSourced = (s: ConfigSourceFile) => {
    const folder = s.scope === "folder";
    const core = folder ? narrowFolderConfig(s.core, s.file, trust, userMode, userSandbox) : s.core;
    take(s.file, { core, extra: s.extra }, folder ? appliedOrigins(s.origins, core) : s.origins, folder);
    warnings.push(...s.warnings);
  };
  for (const s of sourced) if (s.scope !== "policy") takeSourced(s);
  for (const o of ours) take(o.file, o.fc, undefined, o.folder);
  // An administrator's policy goes over everything: its mode, its deny rules, its disableBypass.
  for (const s of sourced.filter((s) => s.scope === "policy")) {
    takeSourced(s);
    // Only the policy's allow rules allow; every file's ask and deny rules still hold (stricter, never looser).
    if (s.onlyItsAllowRules && config.permissions) config.permissions = { ...config.permissions, allow: s.core.permissions?.allow ?? [] };
  }
  // `model` may be an alias, known once every file is merged and the providers are registered (the host checks it then).
  // An untrusted folder's node_modules could shadow a plugin of the user's own config: not looked in.
  if (trust.trusted) pluginBaseDirs.push(configDir);
  if (userDir) pluginBaseDirs.push(userDir);

  return { config, files, sections, origins, warnings, pluginOrigins, configDir, pluginBaseDirs, projectRoot: configDir, userConfigDir: userDir || undefined, trust };
}

const CODE_CONFIG = /\.(?:[cm]?js|[cm]?ts)$/;

function isCodeConfig(file: string): boolean {
  return CODE_CONFIG.test(file);
}

function admitCode(trust: FolderTrust, file: string): boolean {
  return trust.admit({ kind: "config code", name: path.basename(file), file, value: fileDigest(file), detail: "a config file that runs as code in the agent's process" });
}

/** A config source's origins of a folder's file, less the parts its trust held back (they are listed apart). */
function appliedOrigins(origins: ConfigOrigin[], core: AgentConfig): ConfigOrigin[] {
  return origins.filter((o) => {
    if (o.key === "permissions.allow") return !!o.value && !!core.permissions?.allow?.includes(o.value);
    if (o.key === "permissions.mode" && o.value) return core.permissions?.mode === o.value;
    if (o.key.startsWith("env.")) return !!core.env && Object.hasOwn(core.env, o.key.slice(4));
    return true;
  });
}

/** Which file each part of one of agent-host's own files gave: rules one by one, other keys (and sections' entries) by name. */
function originsOf(file: string, fc: FileConfig): ConfigOrigin[] {
  const out: ConfigOrigin[] = [];
  for (const [key, value] of Object.entries(fc.core)) {
    if (value === undefined) continue;
    if (key === "permissions" && isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (Array.isArray(v)) for (const rule of v) out.push({ key: `permissions.${k}`, file, value: String(rule) });
        else out.push({ key: `permissions.${k}`, file, value: String(v) });
      }
    } else if (key === "env" && isPlainObject(value)) for (const name of Object.keys(value)) out.push({ key: `env.${name}`, file });
    else out.push({ key, file });
  }
  for (const [key, value] of Object.entries(fc.extra)) {
    if (isPlainObject(value) && Object.keys(value).length) for (const k of Object.keys(value)) out.push({ key: `${key}.${k}`, file });
    else out.push({ key, file });
  }
  return out;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `compat.<name>` naming no config source this host was given: a typo (`cluade`) would otherwise pass unseen. */
function unknownCompatNames(ours: readonly { file: string; fc: { core: AgentConfig } }[], sources: readonly ConfigSource[]): string[] {
  const known = sources.map((s) => s.name);
  return ours.flatMap(({ file, fc }) =>
    Object.keys(fc.core.compat ?? {})
      .filter((name) => !known.includes(name))
      .map((name) => {
        const near = closestNames(name, known, { max: 1 });
        return `${file}: compat.${name} names no config source of this host${near.length ? ` (did you mean compat.${near[0]}?)` : ""}; known: ${known.join(", ") || "none"}`;
      }),
  );
}
