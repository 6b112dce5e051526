/**
 * The plugin and host contract, in one module because its interfaces refer to each other: a `Plugin`'s
 * `setup` gets a `PluginContext`, whose `host` is a `PluginHost`, whose statuses and CLI commands lead
 * back to `Plugin`. Everything else of the contract sits below it and imports nothing from here
 * (plugin-types.ts, host-types.ts and cli-types.ts re-export these names where they were declared).
 */
import type { z } from "zod";
import type { ToolLoadOptions, ToolLoadResult } from "./registry/tool-sources.js";
import type { AgentConfig, PluginEntry } from "./config/config-schema.js";
import type { ConfigOrigin, ConfigSource } from "./config/config-source.js";
import type { AgentEvent, StopReason } from "./hooks/events.js";
import type { HookTable, PluginHooks } from "./hooks/hooks.js";
import type { KindArrays, KindCounts, KindListings, KindRegistrars } from "./registry/kinds.js";
import type { ModelMessage } from "./loop/model.js";
import type { CompactOutcome, ResumeResult } from "./hooks/hook-types.js";
import type { TrustReport, FolderTrustView, TrustItemInput } from "./config/trust.js";
import type { AuditRecord, AuditSink } from "./gate/audit.js";
import type {
  CallOptions,
  CommandResult,
  CommandSandbox,
  Logger,
  PermissionAsker,
  PermissionMode,
  ProcessTracker,
  SessionGrant,
  ToolResult,
  Workspace,
} from "./types.js";

// Filled through the public entry, where a plugin augments `ToolInputs`: the published .d.ts is one
// bundle, in which a relative module name would no longer resolve.
declare module "agent-host" {
  interface ContractSlots {
    /** An inline plugin object in `AgentConfig.plugins`. */
    plugin: Plugin;
    /** `CommandContext.host`. */
    pluginHost: PluginHost;
  }
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
export type PluginAuditRecord = Pick<AuditRecord, "kind" | "name" | "outcome" | "detail" | "durationMs" | "callId" | "error">;

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
  /**
   * Folders of Markdown commands (`*.md`, Claude Code's command files) the plugin ships, relative to its
   * package: read by the markdown-commands plugin, each command named `<plugin>:<file>` as Claude Code
   * shows a plugin's commands.
   */
  commandDirs?: string[];
  /**
   * Entries the plugin ships for config sections other plugins own (e.g. `hooks`, `mcpServers`), as a
   * config file would give them: checked by the owner's schema and merged after the config files, named
   * `plugin <name>` in messages. Unlike a `config` hook's changes, these are the plugin's own parts (a
   * Claude Code plugin's `hooks/hooks.json`), so a `userOnly` section takes them too.
   */
  sections?: Record<string, unknown>;
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
  /**
   * Trace this host's tool calls: `context(callId)` gives a running call's W3C trace context (`traceparent`,
   * `tracestate`), which tools read as `ToolCallContext.traceContext` and pass to the servers they call.
   * One tracer per host: a later call replaces the earlier.
   */
  traceCalls(context: (callId: string) => Readonly<Record<string, string>> | undefined): void;
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
  /** Absolute folders of the Markdown commands it ships (`commandDirs`). */
  readonly commandDirs: readonly string[];
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

/** Options for one run of the agent loop (`host.run`). */
export interface RunOptions {
  /** `provider:model` (or a model alias) for this run; default `host.session.model`. */
  model?: string;
  /** Model requests allowed in this run; default config `maxTurns`, else 50. */
  maxTurns?: number;
  /** Cancels the model request and the running tool calls; the run ends with reason `aborted`. */
  signal?: AbortSignal;
  /** Replaces config `systemPrompt` (and the default) for this run. */
  systemPrompt?: string;
  /** Retries of a failed model request (429, 5xx, network, broken stream); default 4 attempts, 500 ms base delay. */
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** A model stream that sends nothing for this long is dropped (and retried); default 300 000 ms. */
  idleTimeoutMs?: number;
}

/** A run apart from the session (`runDetached`): a subagent's; `systemPrompt` is its `system`. */
export interface DetachedRunOptions extends Omit<RunOptions, "systemPrompt"> {
  /** The first user message. */
  prompt: string;
  /** The whole system prompt. */
  system: string;
  /** The tools offered to the model, and the only ones it may call. */
  tools: readonly string[];
  /** Who the calls are made for: named in the audit, events and hooks; `mode` narrows the session's. */
  agent: { name: string; parentCallId?: string; mode?: PermissionMode };
  /** Each message as it joins the run's conversation (for a transcript). */
  onMessage?(message: ModelMessage): void;
}

/** What a detached run ended with; model failures are reported here, not thrown. */
export interface DetachedRunResult extends Omit<RunResult, "sessionId" | "stoppedBy"> {
  /** The run's whole conversation. */
  messages: readonly ModelMessage[];
}

/** What a run of the agent loop ended with. Model failures are reported here, not thrown. */
export interface RunResult {
  reason: StopReason;
  /** True when the model finished the task (`reason === "end_turn"`). */
  ok: boolean;
  /** The text of the last assistant message. */
  text: string;
  model: string;
  sessionId: string;
  /** Model requests made. */
  turns: number;
  toolCalls: number;
  usage: { inputTokens: number; outputTokens: number };
  durationMs: number;
  error?: { code: string; message: string };
  /** With reason `stopped`: which plugin stopped the run (a blocked prompt, `ctx.stopRun`), and why. */
  stoppedBy?: { plugin: string; reason: string };
}

/** The conversation a host keeps between runs (one per host). */
export interface AgentSession {
  readonly id: string;
  /**
   * `provider:model` for the next run. Reads as the one set here, else `AGENT_MODEL`, else config `model`;
   * undefined when none is configured. Assign undefined to go back to the default.
   */
  model: string | undefined;
  /** The conversation so far; plugins may rewrite it between runs (e.g. to compact it). */
  readonly messages: ModelMessage[];
  /** Token usage summed over every run of the session. */
  readonly usage: { inputTokens: number; outputTokens: number };
  /** True while a run is in progress. */
  readonly running: boolean;
  /** Forget the conversation (usage totals are kept): `sessionEnd` handlers hear of it (reason `clear`), and what follows is a new session (a new id; the old transcript stays resumable). */
  clear(): void;
  /**
   * The transcript of this conversation (`.agent/sessions/<id>.jsonl` under the project root), written
   * from its first message on; undefined when sessions are off (config `sessions.enabled: false`).
   */
  readonly transcriptPath: string | undefined;
  /**
   * Continue a saved session of this project: an id, the start of exactly one id, or `last` (the newest).
   * Its conversation replaces this one and goes on under its id; with `fork`, as a new session (a copy).
   * A damaged tail is dropped and said in `damaged`. Throws `E_USAGE` for no such session.
   */
  resume(idOrPrefix: string, options?: { fork?: boolean }): Promise<ResumeResult>;
  /**
   * Compact the conversation now (as `/compact` does): older turns summarised by the model, recent ones
   * kept. `instructions`: what the summary must keep. Resolves with what was done (never rejects for a
   * failed summary: `ok: false` and a `reason`).
   */
  compact(options?: { instructions?: string; signal?: AbortSignal; model?: string }): Promise<CompactOutcome>;
}

/**
 * The host as a plugin sees it (`ctx.host`, `CommandContext.host`): it calls tools through the gate
 * like anyone else, and it cannot change the permission mode, install a permission asker, reach the
 * raw hooks or close the host. Every registration kind is listed under its plural (`skills`,
 * `providers`, `agents`: `list()` and `get(name)` of frozen views); tools and commands do more.
 */
export interface PluginHost extends KindListings {
  readonly cwd: string;
  readonly config: Readonly<AgentConfig>;
  /** Files the config was read from, in merge order (Claude Code's settings, then user, project last). */
  readonly configFiles: readonly string[];
  /** Which file gave each part of the config (each permission rule, each key), in merge order. */
  readonly configOrigins: readonly ConfigOrigin[];
  readonly sessionId: string;
  readonly workspace: Workspace;
  readonly tools: KindListings["tools"] & {
    /** Call a tool through the full gate. Never throws: see `ToolResult.ok`. */
    call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
    /** Load tool sources (MCP servers) not loaded yet: all, or those providing `names`; see `ToolSource`. Never rejects. */
    load(options?: ToolLoadOptions): Promise<ToolLoadResult>;
  };
  readonly commands: KindListings["commands"] & {
    /** Run `/name args`. */
    run(line: string, options?: { signal?: AbortSignal }): Promise<CommandResult>;
  };
  /** Every plugin, loaded, failed or disabled (a fresh snapshot on each read). */
  readonly plugins: readonly PluginStatus[];
  readonly problems: readonly HostProblem[];
  /** Read-only here: only the user changes it. */
  readonly permissionMode: PermissionMode;
  /** Rules allowed for the rest of this session (answers "always", plugins' granted requests), oldest first. */
  readonly permissionGrants: readonly SessionGrant[];
  /** Listen to every event (frozen: listeners cannot change what others see); returns an unsubscribe function. */
  on(listener: (event: AgentEvent) => void): () => void;
  emit(event: AgentEvent): void;
  /** The conversation `run` continues. */
  readonly session: AgentSession;
  /**
   * Run the agent loop on a prompt, continuing the session's conversation: the model answers and calls
   * tools through the gate until it is done. Throws `AgentError` only for setup problems (no model
   * configured: `E_NO_MODEL`; unknown provider: `E_CONFIG`; a run already in progress: `E_USAGE`).
   */
  run(prompt: string, options?: RunOptions): Promise<RunResult>;
  /**
   * Run the model apart from the session (a subagent): a fresh conversation of `prompt` under `system`,
   * only `tools`, every call through the gate made for `agent`. The session's messages, transcript and
   * `running` state are untouched; several may run at once. Throws `AgentError` only for setup problems.
   */
  runDetached(options: DetachedRunOptions): Promise<DetachedRunResult>;
}

/** The programmatic host (what `createHost` returns): the plugin view plus what only its owner may do. */
export interface Host extends PluginHost {
  /** Tap-only hooks for the embedder (taps named `host`; errors are reported like a plugin's). */
  readonly hooks: HookTable;
  readonly commands: PluginHost["commands"] & {
    /** `asUser`: the user typed it (the command may then change the permission mode on their behalf). */
    run(line: string, options?: { signal?: AbortSignal; asUser?: boolean }): Promise<CommandResult>;
  };
  /** Setting it is the same as `setPermissionMode(mode, { by: "host" })`. */
  permissionMode: PermissionMode;
  /** Change the permission mode; audited (kind `mode`) with who made the change. */
  setPermissionMode(mode: PermissionMode, options?: { by?: string }): void;
  /** Install the function that answers "ask" permissions (interactive sessions). */
  setPermissionAsker(asker: PermissionAsker | undefined): void;
  /** Runs `shutdown` and stops every child process of this host. Idempotent. */
  close(): Promise<void>;
}

/**
 * A kind of plugin package that is not an npm module (e.g. a Claude Code plugin folder), supplied by the
 * embedder (the CLI passes the Claude Code one): a plugin entry naming a folder it `claims` becomes the
 * plugin object `load` makes of it, and `installed` names the folders the user installed, loaded after
 * the config's plugins. Core knows no format itself.
 */
export interface PluginPackageFormat {
  name: string;
  /** Whether this folder is a package of this format. */
  claims(dir: string): boolean;
  /** The plugin object for the folder; throw to fail it (the message says why, e.g. changed since install). */
  load(dir: string): Promise<Plugin<any>>;
  /** Folders of installed packages to load besides the config's, once the config is read. */
  installed?(where: { projectRoot: string; userConfigDir: string | undefined; trusted: boolean }): Promise<string[]>;
}

/** A built-in plugin, loaded lazily so `agent --version` imports nothing heavy. */
export interface BuiltinPlugin {
  name: string;
  load(): Promise<Plugin<any> | PluginFactory>;
}

/** Options of `prepareHost` / `createHost`. */
export interface CreateHostOptions {
  /** Project folder; default `process.cwd()`. */
  cwd?: string;
  /** Config merged over the files (highest precedence). */
  config?: AgentConfig;
  /** Read config files (project and user config); default true. */
  loadConfigFiles?: boolean;
  /** Folder of the user config, or false to skip it. */
  userConfigDir?: string | false;
  /**
   * Trust of the project folder for this host: `true` as if the user trusted it (the embedder vouches for
   * it), `false` never. Default: the user's decision (`agent trust`, kept in the user config folder), or
   * `AGENT_TRUST=1` in the environment. Untrusted, the folder's code, plugins, hooks, servers and
   * widening settings are not loaded (`prepared.trust` lists them).
   */
  trust?: boolean;
  /** Overrides `permissions.mode` from config. */
  permissionMode?: PermissionMode;
  /** Plugins applied before the config's: the host has no plugin of its own (the CLI passes its built-ins). */
  builtins?: BuiltinPlugin[];
  /**
   * Other tools' settings files read as config, with the config files and before any plugin's setup
   * (the CLI passes Claude Code's: `agent-host/builtins`). Without them only agent-host's own files are read.
   */
  configSources?: ConfigSource[];
  /** Extra plugins applied after the config's. */
  plugins?: PluginEntry[];
  /** Plugin package formats besides npm modules (a plugin entry naming a folder one claims; installed ones). */
  packageFormats?: PluginPackageFormat[];
  /**
   * The OS sandbox commands run in, made once per host from config `sandbox` (trust-narrowed) and the
   * workspace: the CLI passes `createCommandSandbox` (`agent-host/builtins`: bwrap, sandbox-exec). Without
   * it commands run unsandboxed, said once to the model and the user, and `sandbox.required` refuses them.
   */
  sandbox?: (config: AgentConfig["sandbox"], workspace: Workspace) => CommandSandbox;
  /** Answers "ask" permissions; without it, ask means deny (headless). */
  askPermission?: PermissionAsker;
  sessionId?: string;
  /** Audit log path (relative to the project root), or false to disable; overrides config. */
  audit?: string | false;
  /**
   * Where audit records go, made once per host from the log's path (`audit`, config `audit.path`) and
   * config `audit`. Default: the JSONL file there (`appendAuditFile` of `agent-host/kit`).
   */
  auditSink?: (file: string, config: AgentConfig["audit"]) => AuditSink;
  /** Receives plugin log lines; default: warnings and errors become `notice` events, debug goes to stderr with AGENT_DEBUG=1. */
  logger?: Logger;
  /**
   * `true`: the host is ready before its tool sources (MCP servers) are loaded; they load when a call
   * needs one of their tools, when a run starts (bounded by `tools.loadWaitMs`) or on `tools.load()`.
   * Default false: `createHost` resolves once every source is loaded (what an embedder usually wants).
   */
  lazyTools?: boolean;
}

/** Options `open` may still take after `prepareHost` (what does not change which config or plugins are loaded). */
export type OpenHostOptions = Pick<CreateHostOptions, "permissionMode" | "askPermission" | "sessionId" | "logger" | "audit" | "lazyTools"> & {
  /**
   * Aborting it while the host opens closes what is open so far (the plugins' shutdown hooks run, their
   * child processes are stopped) and `open()` rejects; after `open()` it does nothing.
   */
  signal?: AbortSignal;
};

/**
 * A host read but not set up (Vite's "config before setup"): config files merged, plugins imported
 * and instantiated, the `config` hook run, plugin config sections checked. Nothing is started yet.
 */
export interface PreparedHost extends Pick<PluginHost, "cwd" | "config" | "configFiles" | "configOrigins" | "problems"> {
  readonly configDir: string;
  readonly projectRoot: string;
  /** The user config folder read (user-level instructions live there), undefined when user config is off. */
  readonly userConfigDir?: string;
  readonly plugins: readonly PluginStatus[];
  /** The project folder's trust: its state, every part that would run or widen, and those not loaded. */
  readonly trust: TrustReport;
  /** The CLI subcommands plugins declare (`agent <name>`), with the plugin that owns each. */
  readonly cliCommands: readonly { plugin: string; command: CliCommand<any> }[];
  /** Set the plugins up and run the register hooks. Once only. */
  open(options?: OpenHostOptions): Promise<Host>;
}

/** One option of a command, as `node:util` `parseArgs` takes it, plus help text. */
export interface CliOption {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** One line for the generated help. */
  description?: string;
  /** Shown after the flag in the help, e.g. `<file>`. */
  valueName?: string;
}

/** The parsed values of a command's options. */
export type CliValues<O extends Record<string, CliOption>> = {
  [K in keyof O]?: O[K]["type"] extends "boolean"
    ? O[K]["multiple"] extends true
      ? boolean[]
      : boolean
    : O[K]["multiple"] extends true
      ? string[]
      : string;
};

export interface CliCommand<O extends Record<string, CliOption> = Record<string, CliOption>> {
  /** The word after `agent` (or after the parent command): letters, digits and `-`. */
  name: string;
  /** One line for `agent --help`. */
  description: string;
  /** Other words that run it (e.g. `ls` for `list`). */
  aliases?: string[];
  /** Shown by `--help` after `Usage: agent <name>`, e.g. `<server> [--json]`. */
  usage?: string;
  /** More help text, printed after the options. */
  details?: string;
  options?: O;
  /** Whether positional arguments are accepted (default true). */
  positionals?: boolean;
  /** Arguments after the first `--` are passed on untouched in `ctx.rest` (e.g. a server's command line). */
  passThrough?: boolean;
  /** `agent <name> <sub> …`: the first positional picks one; with no positional, `run` (if any) runs. */
  subcommands?: CliCommand<any>[];
  run?(ctx: CliContext<CliValues<O>>): Promise<number | void> | number | void;
}

/** Options for opening the host from a CLI command. */
export interface CliOpenHostOptions extends OpenHostOptions {
  /** Ask permission questions on the terminal when there is one (default false for plugin commands). */
  interactive?: boolean;
  /** Do not print startup problems and notices to stderr. */
  quiet?: boolean;
  /**
   * The CLI opens hosts lazily (`true`): tool sources such as MCP servers start only when a call or a
   * run needs them. Pass `false` for a command that lists everything (`agent tools`, `agent mcp list`).
   */
  lazyTools?: boolean;
  /**
   * A command that only reads and lists (`agent tools`, `agent skills`): it writes no audit record unless the
   * config names a log of its own (`audit.path`): it makes no tool call, and leaves no `.agent/` behind.
   */
  listing?: boolean;
}

/** Options of `CliContext.openSessionHost`. */
export interface CliSessionHostOptions extends OpenHostOptions {
  /** The project folder of this host (default: the command's, `--cwd` or the current folder). */
  cwd?: string;
  /** Config merged over the files and the command line's flags (e.g. an editor's MCP servers for its session). */
  config?: AgentConfig;
  /** Plugins for this host only, applied after the config's (e.g. one that follows the session's calls). */
  plugins?: PluginEntry[];
  /** Do not print startup problems and notices to stderr (default true: a server's stdout may be its protocol). */
  quiet?: boolean;
}

/**
 * A host a command opened for one session it serves (`CliContext.openSessionHost`): the user may change its
 * permission mode (an editor's mode picker). The CLI closes every session host still open when the command returns.
 */
export type CliSessionHost = PluginHost & Pick<Host, "setPermissionMode" | "close">;

/** What a CLI command's `run` receives. */
export interface CliContext<V = Record<string, unknown>> {
  /** The command's own arguments, as typed (after the command words). */
  readonly argv: readonly string[];
  readonly values: V;
  readonly positionals: string[];
  /** Arguments after `--` when the command declares `passThrough`. */
  readonly rest: string[];
  /** The project folder (`--cwd`, else the current folder). */
  readonly cwd: string;
  readonly debug: boolean;
  /** `--permission-mode`, when given. */
  readonly permissionMode?: PermissionMode;
  /** Config read and plugins loaded, nothing set up or started: for commands that only read or edit config. */
  prepare(): Promise<PreparedHost>;
  /**
   * The host, set up, as plugins see it (a plugin's command cannot change the permission mode either);
   * the CLI closes it after `run` returns, stopping every child process.
   */
  openHost(options?: CliOpenHostOptions): Promise<PluginHost>;
  /**
   * Another host, set up like `agent run`'s (the built-in plugins, the command line's flags and
   * permission mode), for a command that serves sessions of its own (`agent acp`: one per editor
   * session, each with its folder). Any number may be open; each runs with its own gate and audit.
   */
  openSessionHost(options?: CliSessionHostOptions): Promise<CliSessionHost>;
  /** Write to stdout (a newline is added when missing). */
  print(text: string): void;
  /** Write a value as indented JSON to stdout. */
  printJson(value: unknown): void;
  /** Write a message to stderr (a newline is added when missing). */
  warn(text: string): void;
  /** A plain text table: columns sized to their content. */
  table(rows: string[][], header?: string[]): string;
  /** Stop with a usage error: the message is printed and the CLI exits 2. */
  usageError(message: string): never;
}
