/**
 * Public types for plugin authors: the plugin object, what `setup` receives, the hook handlers and
 * what they are handed. Everything a built-in plugin uses is here; nothing more is available to it.
 */
import type { ToolSource } from "./tool-sources.js";
import type { z } from "zod";
import type { AgentConfig } from "./config-schema.js";
import type { AgentEvent } from "./events.js";
import type { CliCommand } from "./cli-types.js";
import type { HookTable, PluginHooks } from "./hooks.js";
import type { KindArrays, KindCounts, KindRegistrars } from "./kinds.js";
import type { PluginHost } from "./host-types.js";
import type { ConfigTrust, FolderTrustView, TrustItemInput } from "./trust.js";
import type { ModelProvider } from "./model.js";
import type {
  AgentDefinition,
  AuditKind,
  CommandDefinition,
  DeepReadonly,
  CommandSandbox,
  Logger,
  ProcessTracker,
  RegisteredTool,
  SkillDefinition,
  ToolDefinition,
  Workspace,
} from "./types.js";

/** The plugin object's typed hook methods: derived from the hook table (hooks.ts). */
export type { PluginHooks } from "./hooks.js";

/** Plugin-scoped registration API (what register hooks and `setup` receive), one per kind (kinds.ts). */
export interface ToolRegistrar {
  /** Register a tool; returns false (and reports why) if the gate rejects it. */
  add(def: ToolDefinition): boolean;
  /** Remove a tool this plugin registered (e.g. when an MCP server's tool list changes). */
  remove(name: string): boolean;
  /**
   * Register a source of tools that costs something to load (a server to start): the host calls its
   * `load` when a call names a tool it `provides`, when a run starts, or when everything is listed.
   * Returns false (and reports why) if it is malformed or its name is taken.
   */
  addSource(source: ToolSource): boolean;
  removeSource(name: string): boolean;
}
export interface CommandRegistrar {
  add(def: CommandDefinition): boolean;
  remove(name: string): boolean;
}
export interface SkillRegistrar {
  add(def: SkillDefinition): boolean;
  remove(name: string): boolean;
}
export interface ProviderRegistrar {
  add(provider: ModelProvider): boolean;
  remove(name: string): boolean;
}
export interface AgentRegistrar {
  /** Register a subagent; returns false (and reports why) if the gate rejects it. */
  add(def: AgentDefinition): boolean;
  remove(name: string): boolean;
}

/**
 * A call as `beforeToolCall` / `afterToolCall` see it: a frozen copy. Changing it changes nothing;
 * a `beforeToolCall` handler changes a call only by returning `{ input }`, which the gate validates
 * and decides again. Use `isCallTo(call, tool)` to get the tool's typed input.
 */
export interface ToolCallInfo<I = unknown> {
  readonly tool: RegisteredTool;
  readonly input: DeepReadonly<I>;
  readonly callId: string;
  readonly sessionId: string;
}

/**
 * What a `beforeToolCall` handler may return: deny the call (the first denial stops it), or replace
 * its input (later handlers see the new input; the gate validates it and decides permission again).
 */
export type BeforeToolCallDecision = { deny: string } | { input: unknown };

/** What the `config` hook is handed besides the config. */
export interface ConfigEnv {
  /** The project root (where `.mcp.json`-style files live). */
  readonly projectRoot: string;
  /** Folder of the project config file (the project root when there is none). */
  readonly configDir: string;
  /** Files the config was read from so far, in merge order. */
  readonly files: readonly string[];
  /** Record a file this plugin read config from (shown by `agent config`, named in messages). */
  addFile(file: string): void;
  /** A value from config that is a secret (a server's env or header value): redacted from every record and output. */
  addSecret(value: string, label: string): void;
  /**
   * The folder's trust. A plugin that reads a file of the folder itself (the MCP plugin's `.mcp.json`)
   * asks `trust.admit({ kind, name, file, value, detail })` for each part that would run code or widen
   * what the agent may do, and leaves out every part it refuses; the user is told what was not loaded.
   */
  readonly trust: ConfigTrust;
}

/** A top-level config key a plugin owns: validated in every file (errors name the file and key path), then merged. */
export interface PluginConfigSection {
  schema: z.ZodType;
  /**
   * How values from several files combine: `deep` (default) merges objects key by key; `entries`
   * replaces each entry of an object whole (a server defined again is a different server, not a patch);
   * `concat` merges objects key by key and joins lists (each file adds its hooks to the others').
   */
  merge?: "deep" | "entries" | "concat";
  /**
   * Only the user's files set this section: a plugin's `config` hook that changes it is refused and
   * reported, as for `permissions` (the hooks plugin's `hooks` are policies no plugin may drop or add).
   */
  userOnly?: boolean;
  /**
   * How the section is taken from the files of a folder the user has not trusted (`agent trust`).
   * `inert`: it neither runs anything nor widens what the agent may do, so it applies anyway. Otherwise
   * it is held back until trusted: by default each file's value as one part; with `entries`, each entry
   * of the object is one part of that kind (`{ entries: "MCP server", describe }`), so a new server or
   * hook added after the decision is asked about alone. `describe` says what an entry would run.
   */
  trust?: "inert" | { entries: string; describe?(entry: unknown, key: string): string | undefined };
}

/** An audit record a plugin writes (`ctx.audit`); `source` is the plugin's name. */
export interface PluginAuditRecord {
  kind: AuditKind;
  name: string;
  outcome: string;
  detail?: unknown;
  durationMs?: number;
  /** The tool call this record belongs to, if any. */
  callId?: string;
  error?: string;
}

/**
 * A plugin: a plain object. `O` is the type of its options. Its definitions of each kind (`tools`,
 * `commands`, `skills`, `providers`, `agents`) are registered in the kind's register hook.
 */
export interface Plugin<O = Record<string, unknown>> extends PluginHooks, KindArrays {
  /** Unique name, used in error messages, audit records and `agent plugins`. */
  name: string;
  version?: string;
  /** `pre` handlers run before, `post` after those of plugins without `enforce` (per hook; otherwise config order). */
  enforce?: "pre" | "post";
  /** A zod schema for the options from config: bad options are a config error naming the plugin and the option. */
  options?: z.ZodType<O>;
  /** Top-level config keys this plugin owns (e.g. `mcpServers`), each with its schema. */
  configSections?: Record<string, PluginConfigSection>;
  /** Folders of `SKILL.md` skills the plugin ships, relative to its package (read by the skills plugin). */
  skillDirs?: string[];
  /** CLI subcommands: `agent <name> …`. */
  cli?: CliCommand<any>[];
  /** Runs once when the plugin is applied: after the `config` hook, before any register hook. */
  setup?(ctx: PluginContext<O>): void | Promise<void>;
}

/** A plugin module may export a factory taking the options from config. */
export type PluginFactory<O = any> = ((options: O) => Plugin<any> | Promise<Plugin<any>>) & { options?: z.ZodType<O> };

/**
 * What a plugin's `setup` receives. Everything in it is scoped to the plugin, the registrars of every
 * kind (`tools`, `commands`, `skills`, `providers`, `agents`) too.
 */
export interface PluginContext<O = Record<string, unknown>> extends KindRegistrars {
  /** This plugin's name. */
  readonly name: string;
  /**
   * The plugin's options (second element of a `[name, options]` config entry), validated by its `options`
   * schema. Only this plugin is handed them: in every config a plugin is shown, `plugins` lists names only.
   */
  readonly options: O;
  /** The resolved config, after the `config` hook (frozen); `plugins` lists names only (`[name, options]` is `name`, an inline object `{ name }`). */
  readonly config: Readonly<AgentConfig>;
  /** Folder of the config file (or the project root when there is none). */
  readonly configDir: string;
  /** The plugin's package folder (the nearest package.json's); undefined for inline and built-in plugins. */
  readonly pluginDir: string | undefined;
  /** The user config folder (`~/.config/agent`, `$AGENT_CONFIG_HOME`), or undefined when user config is off. */
  readonly userConfigDir: string | undefined;
  /**
   * Whether the user trusts the project folder. Untrusted, nothing of the folder may run or widen: a
   * plugin that finds code or grants in the folder's files (a Markdown command's `` !`cmd` ``, a skill's
   * `allowed-tools`) leaves them out.
   */
  readonly trust: FolderTrustView;
  readonly workspace: Workspace;
  /** Hooks, tapped under this plugin's name: errors and time-outs are reported, never crash the host. */
  readonly hooks: HookTable;
  readonly log: Logger;
  /** Child processes this plugin starts (servers, watchers): stopped when this host closes. */
  readonly processes: ProcessTracker;
  /** The OS sandbox for processes the plugin starts on the model's or the folder's behalf (command hooks, with `sandbox.hooks`). */
  readonly sandbox: CommandSandbox;
  /**
   * Let read-only tools (`read_file`, `list_files`, `grep`) read a folder outside the workspace, e.g. a
   * skill's own folder. Never writable. Audited with the reason; returns the folder's real path.
   */
  addReadRoot(dir: string, reason: string): string;
  /**
   * Ask to allow `rules` (config syntax) for the rest of the session, e.g. a skill's `allowed-tools`.
   * Config `permissions.grants` decides: `ask` (default) puts the question to the user (refused with no
   * terminal), `allow` grants, `deny` refuses. Resolves true when granted; audited and emitted either way.
   * With `part`, the rules come from a file of the project folder (a Markdown command's `allowed-tools`,
   * the part your `config` hook named to `env.trust.admit`): when the user trusted the folder with that
   * part as it is now, they are granted without asking, for the current (or next) run only, as Claude Code
   * applies a command's allowed-tools for its turn. Otherwise the usual question. A grant never beats a
   * deny rule, an ask rule or plan mode.
   */
  requestGrant(request: { rules: string[]; reason: string; part?: TrustItemInput }): Promise<boolean>;
  /**
   * Ask the user one line of text (an MCP server's form field, a confirmation), through the host's
   * prompt: in the interactive session inline, in `agent run`/`agent call` on the terminal. Resolves
   * with what was typed, or null when nobody can answer (headless, no terminal) or the user cancelled.
   * `question` is shown as is (its last line is the prompt). Questions are asked one at a time.
   */
  askUser(question: string): Promise<string | null>;
  /** Whether `askUser` would reach someone now (a terminal is there to answer); false headless. */
  canAskUser(): boolean;
  /** A value that is a secret (a token the plugin got): redacted from the audit log, logs and CLI output. */
  addSecret(value: string, label: string): void;
  /**
   * Ask the agent loop's run in progress to end at its next step (after the tool calls of the current
   * turn; never mid-call), with reason `stopped`. False when no run is in progress. Shown to the user.
   */
  stopRun(reason: string): boolean;
  /** Emit an event on the `event` hook. */
  emit(event: AgentEvent): void;
  /** Record an audit entry (secrets are redacted by the host). */
  audit(record: PluginAuditRecord): void;
  /**
   * Report a problem the plugin found and kept going past (e.g. a server that failed to connect):
   * it is added to `host.problems` (printed by the CLI, listed by `agent doctor`), audited, and
   * emitted as a `notice` event. Unlike `log.warn`, it is not lost when nobody listens yet.
   */
  report(problem: { kind?: HostProblem["kind"]; name?: string; message: string; level?: HostProblem["level"] }): void;
  /**
   * The host as plugins see it: tools are called through the gate (a call made from inside a tool nests at
   * most 8 deep, then `E_TOOL_DEPTH`); the permission mode is read-only; `config.plugins` lists names only.
   */
  readonly host: PluginHost;
}

/** A plugin's state, with how many of each kind it registered (`tools`, …, `agents`). */
export interface PluginStatus extends KindCounts {
  readonly name: string;
  /** The config entry, or `builtin`. */
  readonly from: string;
  readonly status: "loaded" | "failed" | "disabled";
  readonly error?: string;
  readonly version?: string;
  /** The plugin's package folder (the nearest package.json's); undefined for inline and built-in plugins. */
  readonly dir?: string;
  /** The module file it was loaded from; undefined for inline and built-in plugins. */
  readonly file?: string;
  /** Absolute folders of the skills it ships (`skillDirs`). */
  readonly skillDirs: readonly string[];
}

/** A problem the host found and kept going past: a plugin that failed, a rejected registration, a server that did not connect. */
export interface HostProblem {
  /** `server`: an external server a plugin manages (MCP, LSP, ...) failed or is misconfigured. */
  kind: "plugin" | "register" | "config" | "server" | "provider";
  /**
   * `warning`: worth knowing, nothing is broken (a setting that was not applied, a hook event that never
   * fires here). `agent doctor` lists warnings apart and does not fail on them; commands do not print them.
   */
  level?: "error" | "warning";
  plugin?: string;
  /** The hook whose handler failed (a `plugin` problem reported by the plugin driver). */
  hook?: string;
  name?: string;
  message: string;
}
