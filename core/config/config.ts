/**
 * Config loading: the project's config file found from the cwd up to the project root and loaded whatever
 * its format (kit/fs/config-file.ts); the user config (`~/.config/agent/config.{json,yaml}`) merges under
 * it. Every file is validated on its own so errors name the file. Keys core does not know are kept per file for the
 * plugins that own them (config-sections.ts); files other tools share (`.mcp.json`) are read by the
 * plugin they belong to, through the `config` hook; another tool's settings files by a config source
 * (config-source.ts: Claude Code's, plugins/claude-settings), with the files, before any plugin's setup.
 */
import path from "node:path";
import { AgentConfigSchema, CORE_CONFIG_KEYS, type AgentConfig } from "./config-schema.js";
import { MAX_CONFIG_DEPTH, shortPath, tooDeep } from "../../kit/text/depth.js";
import { ConfigError } from "../../kit/errors.js";
import { findProjectMarkerDir, findUserConfigFile, isCodeConfigFile, loadConfigFile, locateProjectConfig, regularFile } from "../../kit/fs/config-file.js";
import { localSettingsPath } from "../../kit/fs/local-settings.js";
import { absolutizePaths, pluginEntrySpec } from "../../kit/config/plugin-entries.js";
import { mergeDeep } from "../../kit/config/merge.js";
import { keptOrigins, originsOf } from "../../kit/config/origins.js";
import { zodIssues } from "../../kit/schema.js";
import { defaultUserConfigDir } from "../../kit/fs/user-config-dir.js";
import type { ConfigOrigin, ConfigSource, ConfigSourceFile } from "./config-source.js";
import { FolderTrust } from "./trust.js";
import { fileDigest } from "../../kit/fs/trust-store.js";
import { narrowFolderConfig } from "./trust-config.js";
import { unknownCompatNames } from "../../kit/config/compat-names.js";

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
  return { core: absolutizePaths(parsed.data, dir), extra };
}

/** Lists that join across files (deduplicated) instead of being replaced; a safety switch one file turned on stays on. */
const MERGE_RULES = {
  concat: new Set(["plugins", "disabledPlugins", "permissions.allow", "permissions.ask", "permissions.deny", "workspace.roots", "sandbox.allowWrite", "sandbox.denyRead", "sandbox.network"]),
  sticky: new Set(["permissions.disableBypass"]),
};

/** Deep-merge `over` onto `under`: objects merge, listed arrays concatenate (deduplicated), everything else is replaced. */
export function mergeConfig(under: AgentConfig, over: AgentConfig): AgentConfig {
  return mergeDeep(under, over, MERGE_RULES);
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
    origins.push(...(sourced ?? originsOf(file, fc.core, fc.extra)));
    for (const entry of fc.core.plugins ?? []) pluginOrigins.set(pluginEntrySpec(entry).name, file);
  };

  const userDir = !readFiles ? false : options.userConfigDir === undefined ? defaultUserConfigDir() : options.userConfigDir;
  const configDir = projectFile ? path.dirname(projectFile) : stopDir;
  const trust = new FolderTrust({ folder: configDir, userConfigDir: userDir || undefined, override: options.trust });
  const ours: { file: string; fc: FileConfig; folder?: boolean }[] = [];
  const userFile = userDir ? findUserConfigFile(userDir) : undefined;
  if (userFile) ours.push({ file: userFile, fc: await readAndValidate(userFile) });
  // What the folder's own files say applies as far as its trust admits: a folder may narrow, never widen.
  const userMode = ours[0]?.fc.core.permissions?.mode;
  const userSandbox = ours[0]?.fc.core.sandbox;
  const folderFile = async (file: string) => {
    const fc = await readAndValidate(file);
    ours.push({ file, folder: true, fc: { core: narrowFolderConfig(fc.core, file, trust, userMode, userSandbox), extra: fc.extra } });
  };
  // A code config file runs when it is read: it is read only in a trusted folder, and only as the user last saw it.
  if (projectFile && (!isCodeConfigFile(projectFile) || admitCode(trust, projectFile))) await folderFile(projectFile);
  // This machine's own settings for the project (`always for this project`, `agent mcp add -s local`): over the shared file.
  const local = readFiles ? regularFile(localSettingsPath(configDir)) : undefined;
  if (local) {
    // As agent-host last wrote it on the user's answer (`always for this project`, `agent mcp add -s local`): theirs.
    trust.vouchIfWritten(local);
    await folderFile(local);
  }
  const where = "createHost({ config })";
  if (options.overrides) ours.push({ file: where, fc: splitAndValidate(options.overrides as Record<string, unknown>, where, cwd) });

  // Config sources' files merge under agent-host's own files (their policy files over them), unless one of those says compat.<name>: false.
  const sourced: ConfigSourceFile[] = [];
  warnings.push(...unknownCompatNames(ours.map((o) => ({ file: o.file, compat: o.fc.core.compat })), (options.sources ?? []).map((s) => s.name)));
  for (const source of readFiles ? (options.sources ?? []) : []) {
    if (ours.reduce((on, o) => o.fc.core.compat?.[source.name] ?? on, true)) sourced.push(...(await source.read({ projectRoot: configDir, userFiles: !!userDir })));
  }
  const takeSourced = (s: ConfigSourceFile) => {
    const folder = s.scope === "folder";
    const core = folder ? narrowFolderConfig(s.core, s.file, trust, userMode, userSandbox) : s.core;
    take(s.file, { core, extra: s.extra }, folder ? keptOrigins(s.origins, core) : s.origins, folder);
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

function admitCode(trust: FolderTrust, file: string): boolean {
  return trust.admit({ kind: "config code", name: path.basename(file), file, value: fileDigest(file), detail: "a config file that runs as code in the agent's process" });
}
