/**
 * Public types for plugin authors and embedders. Everything here is part of the product:
 * keep it small, documented and stable.
 */
import type { z } from "zod";
import type { AgentEvent, StopReason } from "./events.js";
import type { HookTable } from "./hooks.js";
import type { ModelMessage, ModelProvider } from "./model.js";
import type { AgentConfig } from "./config-schema.js";

/** What a tool may do to the world. Permission modes are defined in terms of risk. */
export type Risk = "read" | "write" | "execute" | "network";
export const RISKS: readonly Risk[] = ["read", "write", "execute", "network"];

/** `default`: read allowed, others ask. `plan`: read only. `acceptEdits`: read + write. `bypass`: all (still audited). */
export type PermissionMode = "default" | "plan" | "acceptEdits" | "bypass";
export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "plan", "acceptEdits", "bypass"];

/** A JSON Schema object describing a tool's input (`type: "object"`). */
export type JsonSchema = { type?: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

/** What a tool's `run` may return: plain text, or a richer result. */
export type ToolReturn =
  | string
  | {
      /** Text for the model. */
      output: string;
      /** Marks the result as a failure the model should see as an error. */
      isError?: boolean;
      /** Machine-readable result (kept beside the text, e.g. MCP `structuredContent`). */
      structured?: unknown;
    };

/** Passed to a tool's `run`. */
export interface ToolCallContext {
  /**
   * Fires on timeout, on Ctrl-C and when the caller aborts. Long-running tools must honour it.
   * Created the first time it is read (an `AbortSignal` costs a few microseconds on Node 20); a tool
   * that reads it after the call was stopped gets an already-aborted signal.
   */
  readonly signal: AbortSignal;
  /** True once the call was stopped (timeout, Ctrl-C, caller abort); reading it does not create `signal`. */
  readonly aborted: boolean;
  /**
   * Run `listener` once when the call is stopped, with the reason (at once, if it already was). Returns a
   * function that removes it. The cheap alternative to `signal.addEventListener("abort", …)` for tools on
   * a hot path; a listener that throws is reported as a notice, never as the call's failure.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** Unique id of this call (also in the audit record and events). */
  callId: string;
  /** The workspace: project root, extra roots, and a path resolver that refuses escapes. */
  workspace: Workspace;
  /** Report progress; becomes a `tool_progress` event. */
  progress(update: { progress: number; total?: number; message?: string }): void;
}

/**
 * A tool definition. Give exactly one of `input` (a zod object schema, for local tools)
 * or `inputSchema` (a JSON Schema object, for remote tools such as MCP).
 */
export interface ToolDefinition<I = any> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique across the host. */
  name: string;
  /** What the tool does, for the model. Required. */
  description: string;
  input?: z.ZodType<I>;
  inputSchema?: JsonSchema;
  /** Default `execute` when not given: unknown tools are treated as dangerous. */
  risk?: Risk;
  /** Per-tool timeout in ms (config overrides win). */
  timeoutMs?: number;
  /** Per-tool output cap in bytes (config overrides win). */
  maxOutputBytes?: number;
  /**
   * The string that `permissions` rules with a parenthesised pattern match against,
   * e.g. the command for `run_command(npm test:*)` or the path for `write_file(src/*)`. Return several
   * (e.g. each part of `a && b`): allow rules must match all of them, deny and ask rules any.
   */
  permissionSubject?(input: I): string | string[] | undefined;
  /** Shown in `agent tools` and the audit log instead of the plugin name (e.g. `mcp:github`). */
  source?: string;
  /** Free-form data for plugins (e.g. the original MCP tool name). Never sent to the model. */
  meta?: Record<string, unknown>;
  run(input: I, ctx: ToolCallContext): Promise<ToolReturn> | ToolReturn;
}

/** A tool as the registry holds it, after the gate accepted it. */
export interface RegisteredTool {
  name: string;
  description: string;
  risk: Risk;
  /** Plugin name, or the definition's `source`. */
  source: string;
  /** The plugin that registered it. */
  plugin: string;
  /** JSON Schema of the input (converted from zod for local tools). */
  inputSchema: JsonSchema;
  timeoutMs?: number;
  maxOutputBytes?: number;
  meta?: Record<string, unknown>;
  /** @internal */
  readonly definition: ToolDefinition;
}

export type CallOutcome = "ok" | "error" | "denied" | "timeout" | "invalid" | "aborted";

/** The result of every call through the gate. */
export interface ToolResult {
  ok: boolean;
  outcome: CallOutcome;
  /** Text for the model (on failure: the error message the model should act on). */
  output: string;
  /** Machine code on failure, e.g. `E_TOOL_DENIED`. */
  error?: { code: string; message: string };
  structured?: unknown;
  /** True when the output was cut to the cap. */
  truncated?: boolean;
  durationMs: number;
  callId: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Override the call id (for correlating with a model's tool call id). */
  callId?: string;
}

/** Answer to a permission question. */
export type PermissionAnswer = "allow_once" | "allow_session" | "deny";

export interface PermissionRequest {
  tool: RegisteredTool;
  input: unknown;
  subject?: string;
  /** The rules to add that would allow this without asking, e.g. `run_command(npm test:*)` (one per part of a compound command). */
  suggestedRules: string[];
  /** `suggestedRules` joined with ", ", for display. */
  suggestedRule: string;
  reason: string;
}

/** Decides "ask" permissions. Absent (headless): ask means deny. */
export type PermissionAsker = (req: PermissionRequest) => Promise<PermissionAnswer>;

/** A slash command. */
export interface CommandDefinition {
  /** Invoked as `/name`. Letters, digits, `_`, `-`, `:`; unique. */
  name: string;
  description: string;
  /** Hint shown in `/help`, e.g. `<file>`. */
  argumentHint?: string;
  source?: string;
  run(args: string, ctx: CommandContext): Promise<CommandResult | string | void> | CommandResult | string | void;
}

export interface CommandResult {
  /** Text to print to the user. */
  output?: string;
  /** A prompt to send to the model as the user's next message. */
  prompt?: string;
  /** Ask the interactive session to end. */
  exit?: boolean;
}

export interface CommandContext {
  host: Host;
  signal: AbortSignal;
}

export interface RegisteredCommand {
  name: string;
  description: string;
  argumentHint?: string;
  source: string;
  plugin: string;
  readonly definition: CommandDefinition;
}

/** A skill: Markdown instructions the model can pull into its context. Follows the SKILL.md rules. */
export interface SkillDefinition {
  /** Lowercase letters, digits and hyphens, at most 64 characters. */
  name: string;
  /** When to use it; at most 1024 characters. */
  description: string;
  /** The Markdown body. */
  content: string;
  /** Where it came from (a file path, for skills loaded from disk). */
  path?: string;
  source?: string;
}

export interface RegisteredSkill extends SkillDefinition {
  source: string;
  plugin: string;
}

/** The workspace a tool may touch. */
export interface Workspace {
  /** The project root (real path). */
  root: string;
  /** The root plus any extra folders from config (real paths). */
  roots: readonly string[];
  /**
   * Resolve a user- or model-supplied path against the root and make sure it stays inside a root,
   * following symlinks. Throws an `AgentError` with code `E_PATH_OUTSIDE_WORKSPACE` otherwise.
   */
  resolve(p: string): string;
  /** Path relative to the root, for display. */
  relative(abs: string): string;
}

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** Plugin-scoped registration API (what `registerTools` handlers and `setup` receive). */
export interface ToolRegistrar {
  /** Register a tool; returns false (and reports why) if the gate rejects it. */
  add(def: ToolDefinition): boolean;
  /** Remove a tool this plugin registered (e.g. when an MCP server's tool list changes). */
  remove(name: string): boolean;
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
}

/** What a plugin's `setup` receives. */
export interface PluginContext {
  /** This plugin's name. */
  name: string;
  /** The plugin's options (second element of a `[name, options]` config entry). */
  options: Record<string, unknown>;
  /** The resolved config (after the `config` waterfall only from `registerTools` on). */
  readonly config: AgentConfig;
  /** Folder of the config file (or the cwd when there is none). */
  configDir: string;
  workspace: Workspace;
  /** Hooks, tapped under this plugin's name: errors are wrapped and never crash the host. */
  hooks: HookTable;
  tools: ToolRegistrar;
  commands: CommandRegistrar;
  skills: SkillRegistrar;
  providers: ProviderRegistrar;
  log: Logger;
  /** Emit an event on the `event` hook. */
  emit(event: AgentEvent): void;
  /** Record an audit entry (secrets are redacted by the host). */
  audit(record: { kind: AuditKind; name: string; outcome: string; detail?: unknown }): void;
  /**
   * Report a problem the plugin found and kept going past (e.g. a server that failed to connect):
   * it is added to `host.problems` (printed by the CLI, listed by `agent doctor`), audited, and
   * emitted as a `notice` event. Unlike `log.warn`, it is not lost when nobody listens yet.
   */
  report(problem: { kind?: HostProblem["kind"]; name?: string; message: string }): void;
  /** The host, for plugins that need to call tools (always through the gate). */
  host: Host;
}

/** Typed hook handlers a plugin object may declare; the host taps them under the plugin's name. */
export interface PluginHooks {
  config?(config: AgentConfig): AgentConfig | void | Promise<AgentConfig | void>;
  registerTools?(tools: ToolRegistrar): void | Promise<void>;
  registerCommands?(commands: CommandRegistrar): void | Promise<void>;
  registerSkills?(skills: SkillRegistrar): void | Promise<void>;
  registerProviders?(providers: ProviderRegistrar): void | Promise<void>;
  beforeModelRequest?(request: import("./model.js").ModelRequest): import("./model.js").ModelRequest | void | Promise<import("./model.js").ModelRequest | void>;
  beforeToolCall?(call: ToolCallInfo): BeforeToolCallDecision | void | Promise<BeforeToolCallDecision | void>;
  afterToolCall?(result: ToolResult, call: ToolCallInfo): ToolResult | void | Promise<ToolResult | void>;
  event?(event: AgentEvent): void;
  shutdown?(): void | Promise<void>;
}

/** A call as `beforeToolCall` / `afterToolCall` see it. */
export interface ToolCallInfo {
  tool: RegisteredTool;
  input: unknown;
  callId: string;
}

/** What a `beforeToolCall` handler may return: deny the call, or replace its input. */
export type BeforeToolCallDecision = { deny: string } | { input: unknown };

/** A plugin: a plain object. */
export interface Plugin extends PluginHooks {
  /** Unique name, used in error messages, audit records and `agent plugins`. */
  name: string;
  version?: string;
  /** `pre` handlers run before, `post` after those of plugins without `enforce` (per hook; otherwise config order). */
  enforce?: "pre" | "post";
  tools?: ToolDefinition[];
  commands?: CommandDefinition[];
  skills?: SkillDefinition[];
  providers?: ModelProvider[];
  /** Runs once when the plugin is applied, before any register hook. */
  setup?(ctx: PluginContext): void | Promise<void>;
}

/** A plugin module may export a factory taking the options from config. */
export type PluginFactory<O = any> = (options: O) => Plugin | Promise<Plugin>;

export type AuditKind = "register" | "call" | "command" | "skill" | "plugin";

export interface PluginStatus {
  name: string;
  /** The config entry or `builtin`. */
  from: string;
  status: "loaded" | "failed";
  error?: string;
  tools: number;
  commands: number;
  skills: number;
  providers: number;
}

/** A problem the host found and kept going past: a plugin that failed, a rejected registration. */
export interface HostProblem {
  kind: "plugin" | "register" | "config" | "mcp" | "provider";
  plugin?: string;
  name?: string;
  message: string;
}

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
  /** Forget the conversation (usage totals are kept). */
  clear(): void;
}

/** The programmatic host (what `createHost` returns). */
export interface Host {
  readonly cwd: string;
  readonly config: AgentConfig;
  /** Files the config was read from, in merge order (user first, project last). */
  readonly configFiles: readonly string[];
  readonly sessionId: string;
  readonly workspace: Workspace;
  readonly hooks: HookTable;
  readonly tools: {
    list(): RegisteredTool[];
    get(name: string): RegisteredTool | undefined;
    /** Call a tool through the full gate. Never throws for tool failures: see `ToolResult.ok`. */
    call(name: string, input: unknown, options?: CallOptions): Promise<ToolResult>;
  };
  readonly commands: {
    list(): RegisteredCommand[];
    get(name: string): RegisteredCommand | undefined;
    /** Run `/name args`. */
    run(line: string, options?: { signal?: AbortSignal }): Promise<CommandResult>;
  };
  readonly skills: { list(): RegisteredSkill[]; get(name: string): RegisteredSkill | undefined };
  readonly providers: { list(): ModelProvider[]; get(name: string): ModelProvider | undefined };
  readonly plugins: readonly PluginStatus[];
  readonly problems: readonly HostProblem[];
  permissionMode: PermissionMode;
  /** Install the function that answers "ask" permissions (interactive sessions). */
  setPermissionAsker(asker: PermissionAsker | undefined): void;
  /** Listen to every event; returns an unsubscribe function. */
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
  /** Runs `shutdown` and stops every child process. Idempotent. */
  close(): Promise<void>;
}
