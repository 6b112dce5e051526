/** Public types of the host: what embedders get from `createHost`, and the narrower view plugins get. */
import type { ToolLoadOptions, ToolLoadResult } from "./tool-sources.js";
import type { AgentConfig, PluginEntry } from "./config-schema.js";
import type { ConfigOrigin } from "./claude-settings.js";
import type { AgentEvent, StopReason } from "./events.js";
import type { HookTable } from "./hooks.js";
import type { KindListings } from "./kinds.js";
import type { ModelMessage } from "./model.js";
import type { CompactOutcome } from "./compaction.js";
import type { ResumeResult } from "./session-recorder.js";
import type { HostProblem, Plugin, PluginFactory, PluginStatus } from "./plugin-types.js";
import type { CliCommand } from "./cli-types.js";
import type { TrustReport } from "./trust.js";
import type {
  CallOptions,
  CommandResult,
  Logger,
  PermissionAsker,
  PermissionMode,
  RegisteredCommand,
  RegisteredTool,
  ToolResult,
  Workspace,
} from "./types.js";

/** Options for one run of the agent loop (`host.run`). */
export interface RunOptions {
  /** `provider:model` for this run; default `host.session.model`. */
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
  readonly tools: {
    list(): RegisteredTool[];
    get(name: string): RegisteredTool | undefined;
    /** Call a tool through the full gate. Never throws: see `ToolResult.ok`. */
    call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
    /** Load tool sources (MCP servers) not loaded yet: all, or those providing `names`; see `ToolSource`. Never rejects. */
    load(options?: ToolLoadOptions): Promise<ToolLoadResult>;
  };
  readonly commands: {
    list(): RegisteredCommand[];
    get(name: string): RegisteredCommand | undefined;
    /** Run `/name args`. */
    run(line: string, options?: { signal?: AbortSignal }): Promise<CommandResult>;
  };
  /** Every plugin, loaded, failed or disabled (a fresh snapshot on each read). */
  readonly plugins: readonly PluginStatus[];
  readonly problems: readonly HostProblem[];
  /** Read-only here: only the user changes it. */
  readonly permissionMode: PermissionMode;
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
  /** Extra plugins applied after the config's. */
  plugins?: PluginEntry[];
  /** Answers "ask" permissions; without it, ask means deny (headless). */
  askPermission?: PermissionAsker;
  sessionId?: string;
  /** Audit log path (relative to the project root), or false to disable; overrides config. */
  audit?: string | false;
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
export interface PreparedHost {
  readonly cwd: string;
  readonly config: Readonly<AgentConfig>;
  readonly configFiles: readonly string[];
  /** Which file gave each part of the config (each permission rule, each key), in merge order. */
  readonly configOrigins: readonly ConfigOrigin[];
  readonly configDir: string;
  readonly projectRoot: string;
  /** The user config folder read (user-level instructions live there), undefined when user config is off. */
  readonly userConfigDir?: string;
  readonly plugins: readonly PluginStatus[];
  readonly problems: readonly HostProblem[];
  /** The project folder's trust: its state, every part that would run or widen, and those not loaded. */
  readonly trust: TrustReport;
  /** The CLI subcommands plugins declare (`agent <name>`), with the plugin that owns each. */
  readonly cliCommands: readonly { plugin: string; command: CliCommand<any> }[];
  /** Set the plugins up and run the register hooks. Once only. */
  open(options?: OpenHostOptions): Promise<Host>;
}
