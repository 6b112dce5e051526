/**
 * The first half of the lifecycle (Vite's order: config before setup): read the config files, import
 * and instantiate every plugin (in parallel; disabled ones are not imported), check their options, run
 * the `config` hook, and check the plugins' config sections. Nothing is set up or started here, so the
 * CLI can list plugin subcommands and `agent config` can show the final config cheaply.
 */
import path from "node:path";
import { checkSections, mergeHookConfig, type SectionOwner } from "../config/config-sections.js";
import { AgentConfigSchema, CORE_CONFIG_KEYS, type AgentConfig } from "../config/config-schema.js";
import { loadConfig, type LoadedConfig } from "../config/config.js";
import { firstIssue } from "../../kit/schema.js";
import { absolutePluginEntry, isDisabled } from "../../kit/config/plugin-entries.js";
import { pluginFolders } from "../../kit/plugin-resolve.js";
import { AgentError, ConfigError, errorMessage, sentence } from "../../kit/errors.js";
import { createHooks, HOOKS, type HookName, type HookTable, type RawHooks } from "../hooks/hooks.js";
import type { CreateHostOptions, Host, OpenHostOptions, PreparedHost } from "../host-types.js";
import { pluginHookView, tapPluginObject, type DriverOptions } from "./plugin-driver.js";
import { instantiate, specFromEntry, type PluginSpec } from "./plugin-loader.js";
import { kindCounts, type KindCounts } from "../registry/kinds.js";
import type { ConfigEnv, HostProblem, Plugin, PluginStatus } from "../plugin-types.js";
import type { PluginPackageFormat } from "../contract.js";
import type { CliCommand } from "../cli-types.js";
import { addSecret } from "../../kit/text/redact.js";
import { admitFolderSections } from "../config/trust-config.js";
import type { FolderTrust } from "../config/trust.js";
import { trustFolder } from "../../kit/fs/trust-store.js";

/** How long a plugin's hook handler may take, by default (config `pluginTimeouts`). */
export const DEFAULT_PLUGIN_TIMEOUTS: Readonly<{ callMs: number; startupMs: number; shutdownMs: number }> = Object.freeze({ callMs: 30_000, startupMs: 120_000, shutdownMs: 5_000 });

/**
 * A plugin's `setup`, unless `pluginTimeouts.startupMs` is set: every command waits for setups, and
 * none needs long (MCP servers connect later, as tool sources bounded by their own connectTimeout).
 * The 120 s of startupMs dates from when setup and registerTools waited for MCP connections.
 */
export const DEFAULT_SETUP_MS = 15_000;

/** One plugin as preparing left it. */
export interface PreparedPlugin {
  spec: PluginSpec;
  name: string;
  status: "loaded" | "failed" | "disabled";
  error?: string;
  plugin?: Plugin<any>;
  options?: unknown;
  dir?: string;
  file?: string;
  version?: string;
  /** Its tap-only view of the hooks (loaded plugins only). */
  hooks?: HookTable;
}

/** What `open` needs from preparing. */
export interface PreparedState {
  cwd: string;
  options: CreateHostOptions;
  loaded: LoadedConfig;
  config: AgentConfig;
  files: string[];
  hooks: RawHooks;
  plugins: PreparedPlugin[];
  problems: HostProblem[];
  /** Plugins whose setup threw: their handlers no longer run. */
  failed: Set<string>;
  driver: DriverOptions;
  /** How long one plugin's `setup` may take. */
  setupMs: number;
  /** Set by `open` once the host exists: where handler errors are reported from then on. */
  onProblem?: (problem: HostProblem) => void;
}

export async function prepareHost(options: CreateHostOptions = {}, open?: (state: PreparedState, options: OpenHostOptions) => Promise<Host>): Promise<PreparedHost> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const loaded = await loadConfig({ cwd, userConfigDir: options.userConfigDir, overrides: options.config, readFiles: options.loadConfigFiles !== false, trust: options.trust, sources: options.configSources });
  const problems: HostProblem[] = [];
  const failed = new Set<string>();
  let configClosed = false;
  const timeouts = { ...DEFAULT_PLUGIN_TIMEOUTS, ...loaded.config.pluginTimeouts };
  const state: PreparedState = {
    cwd,
    options,
    loaded,
    config: loaded.config,
    files: [...loaded.files],
    hooks: createHooks(),
    plugins: [],
    problems,
    failed,
    driver: undefined as unknown as DriverOptions,
    setupMs: loaded.config.pluginTimeouts?.startupMs ?? DEFAULT_SETUP_MS,
  };
  const report = (p: HostProblem) => (state.onProblem ? state.onProblem(p) : void problems.push(p));
  let owners = new Map<string, SectionOwner>();
  state.driver = {
    isFailed: (p) => failed.has(p),
    onError: (plugin, hook, message) => report({ kind: "plugin", plugin, hook, message: `Plugin ${plugin} failed in ${hook}: ${message}` }),
    // Each hook's timeout class (hooks.ts) picks its bound: startupMs, callMs (the user waits) or shutdownMs.
    timeoutMs: (hook: HookName) => (HOOKS[hook].timeout === "model" ? Infinity : timeouts[`${HOOKS[hook].timeout as "call"}Ms`]),
    configClosed: () => configClosed,
    mergeConfig: (plugin, current, returned) => {
      if (typeof returned !== "object" || returned === null || Array.isArray(returned)) {
        report({ kind: "plugin", plugin, message: `Plugin ${plugin} failed in config: it returned ${Array.isArray(returned) ? "an array" : typeof returned} instead of config to merge; ignored` });
        return undefined;
      }
      const userOnly = [...owners].filter(([, o]) => o.section.userOnly === true).map(([key]) => key);
      const { config, refused } = mergeHookConfig(current as AgentConfig, returned as Record<string, unknown>, userOnly);
      if (refused.length) {
        report({ kind: "plugin", plugin, message: `Plugin ${plugin} tried to change ${refused.join(", ")} in its config hook; only your config files decide those, so the change was ignored` });
      }
      const bad = validateWhole(config, owners);
      if (bad) {
        report({ kind: "plugin", plugin, message: `Plugin ${plugin} failed in config: the config it returned is invalid (${bad}); ignored` });
        return undefined;
      }
      return config;
    },
    // A config hook's ConfigError names the user's file (e.g. a broken .mcp.json): a config error, exit 2.
    rethrow: (err, hook) => hook === "config" && err instanceof ConfigError,
  };

  await loadPlugins(state, options);

  // Plugin config sections: each file's value checked by its owner, then merged in file order.
  owners = sectionOwners(state);
  const lenient = state.plugins.some((p) => p.status !== "loaded");
  const admitted = admitFolderSections(loaded.sections, (key) => owners.get(key)?.section, loaded.trust);
  const sections = checkSections([...admitted, ...pluginSections(state, owners)], owners, CORE_CONFIG_KEYS, lenient);
  for (const o of sections.orphans) {
    if (o.optional) report({ kind: "config", level: "warning", message: `${o.file}: key "${o.key}" is not used by any loaded plugin; ignored` });
    else report({ kind: "config", message: `${o.file}: key "${o.key}" is not used by any loaded plugin (one that was disabled or failed may own it); ignored` });
  }
  for (const w of loaded.warnings) report({ kind: "config", level: "warning", message: w });
  state.config = { ...loaded.config, ...sections.values };

  // The config hook: plugin objects' own handlers, in plugin order (enforce first), before any setup.
  for (const p of state.plugins) if (p.status === "loaded") tapPluginObject(p.plugin!, p.hooks!, "config");
  if (state.hooks.config.isUsed()) {
    const env: ConfigEnv = Object.freeze({
      projectRoot: loaded.projectRoot,
      configDir: loaded.configDir,
      get files() {
        return [...state.files];
      },
      addFile: (file: string) => {
        if (typeof file === "string" && !state.files.includes(file)) state.files.push(file);
      },
      addSecret: (value: string, label: string) => addSecret(value, String(label)),
      trust: loaded.trust.view(),
    });
    state.config = await state.hooks.config.promise(state.config, env);
  }
  configClosed = true;

  let opened = false;
  const statuses = () => state.plugins.map((p) => statusOf(p));
  return remember(loaded.trust, {
    cwd,
    get config() {
      return state.config;
    },
    get configFiles() {
      return [...state.files];
    },
    configOrigins: Object.freeze(loaded.origins.map((o) => Object.freeze({ ...o }))),
    configDir: loaded.configDir,
    projectRoot: loaded.projectRoot,
    userConfigDir: loaded.userConfigDir,
    get trust() {
      return loaded.trust.report();
    },
    get plugins() {
      return statuses();
    },
    get problems() {
      return [...problems];
    },
    cliCommands: state.plugins.flatMap((p) => (p.status === "loaded" ? (p.plugin!.cli ?? []).map((command: CliCommand<any>) => ({ plugin: p.name, command })) : [])),
    async open(openOptions: OpenHostOptions = {}) {
      if (opened) throw new Error("this prepared host was already opened");
      opened = true;
      if (!open) throw new Error("prepareHost was called without an opener");
      return open(state, openOptions);
    },
  });
}

const trusts = new WeakMap<PreparedHost, FolderTrust>();

function remember(trust: FolderTrust, prepared: PreparedHost): PreparedHost {
  const frozen = Object.freeze(prepared);
  trusts.set(frozen, trust);
  return frozen;
}

/**
 * The user trusts the prepared host's folder with every part it saw (prepare it with `trust: true` to
 * see them all): recorded in the user config folder; a part added later is held back until trusted again.
 */
export function trustPreparedFolder(prepared: PreparedHost): string {
  const trust = trusts.get(prepared);
  if (!trust) throw new Error("not a prepared host");
  if (!prepared.userConfigDir) throw new AgentError("E_USAGE", "there is no user config folder to keep the decision in");
  return trustFolder(prepared.userConfigDir, trust.folder, trust.digests());
}

async function loadPlugins(state: PreparedState, options: CreateHostOptions): Promise<void> {
  const { loaded } = state;
  const disabled = loaded.config.disabledPlugins;
  const formats = options.packageFormats ?? [];
  // A path in `createHost({ plugins })` is relative to the host's cwd, as one in a config file is to that file.
  const entries = [...(loaded.config.plugins ?? []), ...(options.plugins ?? []).map((e) => absolutePluginEntry(e, state.cwd)), ...(await installedPackages(state, formats))];
  const specs: PluginSpec[] = [
    ...(options.builtins ?? []).map(
      (b): PluginSpec => ({ from: "builtin", name: b.name, options: {}, load: async () => ({ exported: await b.load() }) }),
    ),
    ...entries.map((e) => specFromEntry(e, loaded.pluginBaseDirs, loaded.pluginOrigins, formats)),
  ];
  const results = await Promise.all(
    specs.map(async (spec): Promise<PreparedPlugin> => {
      const name = spec.name ?? spec.from;
      if (isDisabled(disabled, spec)) return { spec, name, status: "disabled" };
      try {
        const mod = await spec.load();
        const { plugin, options: opts } = await instantiate(mod.exported, spec.options, spec.from, spec.origin);
        if (isDisabled(disabled, { from: spec.from, name: plugin.name })) return { spec, name: plugin.name, status: "disabled" };
        return { spec, name: plugin.name, status: "loaded", plugin, options: opts, dir: mod.dir, file: mod.file, version: plugin.version ?? mod.version };
      } catch (err) {
        // Options that do not fit a plugin's schema are the user's config error: exit 2, naming the file.
        if (err instanceof ConfigError) throw err;
        return { spec, name, status: "failed", error: errorMessage(err) };
      }
    }),
  );
  const seen = new Set<string>();
  for (const p of results) {
    if (p.status === "failed") {
      state.problems.push({ kind: "plugin", plugin: p.name, message: `Plugin ${p.name} failed to load: ${sentence(p.error ?? "")} Continuing without it.` });
    } else if (p.status === "loaded" && seen.has(p.name)) {
      p.status = "failed";
      p.error = "a plugin with this name is already loaded";
      state.problems.push({ kind: "plugin", plugin: p.name, message: `Plugin ${p.name} (${p.spec.from}) skipped: a plugin with this name is already loaded.` });
    } else if (p.status === "loaded") {
      seen.add(p.name);
      const stage = p.plugin!.enforce === "pre" ? -100 : p.plugin!.enforce === "post" ? 100 : 0;
      p.hooks = pluginHookView(state.hooks, p.name, stage, state.driver);
    }
    state.plugins.push(p);
  }
}

/** The folders of installed packages each format names (`PluginPackageFormat.installed`); a failing format is reported. */
async function installedPackages(state: PreparedState, formats: readonly PluginPackageFormat[]): Promise<string[]> {
  const { loaded } = state;
  const where = { projectRoot: loaded.projectRoot, userConfigDir: loaded.userConfigDir, trusted: loaded.trust.trusted };
  const lists = await Promise.all(
    formats.map(async (f) => {
      try {
        return (await f.installed?.(where)) ?? [];
      } catch (err) {
        state.problems.push({ kind: "plugin", message: `Installed ${f.name} plugins were not loaded: ${sentence(errorMessage(err))}` });
        return [];
      }
    }),
  );
  return lists.flat().filter((d) => typeof d === "string" && path.isAbsolute(d));
}

function sectionOwners(state: PreparedState): Map<string, SectionOwner> {
  const owners = new Map<string, SectionOwner>();
  for (const p of state.plugins) {
    if (p.status !== "loaded") continue;
    for (const [key, section] of Object.entries(p.plugin!.configSections ?? {})) {
      const taken = owners.get(key);
      if (CORE_CONFIG_KEYS.includes(key) || taken || !section || typeof section.schema?.safeParse !== "function") {
        const why = CORE_CONFIG_KEYS.includes(key) ? "it is one of core's" : taken ? `plugin ${taken.plugin} owns it` : "it has no zod schema";
        state.problems.push({ kind: "plugin", plugin: p.name, message: `Plugin ${p.name}: config section "${key}" ignored: ${why}` });
        continue;
      }
      owners.set(key, { plugin: p.name, section });
    }
  }
  return owners;
}

/**
 * The section entries plugins ship (`Plugin.sections`), after the config files: one that no loaded
 * plugin owns, or that its owner's schema refuses, is reported and left out (the plugin's fault, not a
 * config error of the user's).
 */
function pluginSections(state: PreparedState, owners: Map<string, SectionOwner>): { file: string; key: string; value: unknown }[] {
  const out: { file: string; key: string; value: unknown }[] = [];
  for (const p of state.plugins) {
    if (p.status !== "loaded" || !p.plugin!.sections || typeof p.plugin!.sections !== "object") continue;
    for (const [key, value] of Object.entries(p.plugin!.sections)) {
      const owner = CORE_CONFIG_KEYS.includes(key) ? undefined : owners.get(key);
      const parsed = owner?.section.schema.safeParse(value);
      const problem = !parsed ? "no loaded plugin owns that key" : parsed.success ? undefined : firstIssue(parsed.error);
      if (problem) state.problems.push({ kind: "plugin", plugin: p.name, message: `Plugin ${p.name}: its "${key}" entries were left out: ${problem}` });
      else out.push({ file: `plugin ${p.name}`, key, value });
    }
  }
  return out;
}

/** Why a whole config is invalid, or undefined: core's keys and every owned section. */
function validateWhole(config: AgentConfig, owners: Map<string, SectionOwner>): string | undefined {
  const core = AgentConfigSchema.safeParse(config);
  if (!core.success) return firstIssue(core.error);
  for (const [key, owner] of owners) {
    if (config[key] === undefined) continue;
    const r = owner.section.schema.safeParse(config[key]);
    if (!r.success) return firstIssue(r.error, key);
  }
  return undefined;
}

export function statusOf(p: PreparedPlugin, counts?: (plugin: string) => KindCounts): PluginStatus {
  const c = p.status === "loaded" && counts ? counts(p.name) : kindCounts(undefined, p.name);
  const base = p.dir ?? undefined;
  return Object.freeze({
    name: p.name,
    from: p.spec.from,
    status: p.status,
    ...(p.error !== undefined ? { error: p.error } : {}),
    ...(p.version !== undefined ? { version: p.version } : {}),
    ...(p.dir !== undefined ? { dir: p.dir } : {}),
    ...(p.file !== undefined ? { file: p.file } : {}),
    skillDirs: pluginFolders(base, p.plugin?.skillDirs),
    commandDirs: pluginFolders(base, p.plugin?.commandDirs),
    ...c,
  });
}
