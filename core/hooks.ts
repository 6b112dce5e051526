/**
 * The hook table: one frozen object of tapable hooks, as webpack's `Compiler.hooks`, declared in
 * lifecycle order. The host holds the only raw table; plugins (and embedders, through `host.hooks`)
 * get a tap-only view of it (`HookTable`): they can add their handlers, never list, remove, reorder
 * or intercept anyone else's, nor call a hook themselves.
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from "tapable";
import type { AgentConfig } from "./config-schema.js";
import type { AgentEvent, AgentEventType } from "./events.js";
import type { ModelRequest } from "./model.js";
import type { BeforeToolCallDecision, ConfigEnv, ToolCallInfo } from "./plugin-types.js";
import type { CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "./plugin-types.js";
import type {
  CompactDecision,
  CompactInfo,
  PermissionCheck,
  PermissionPromptAnswer,
  PermissionPromptInfo,
  PermissionVote,
  SessionEndInfo,
  SessionStartInfo,
  SessionStartResult,
  StopDecision,
  StopInfo,
  UserPromptDecision,
  UserPromptInfo,
} from "./hook-types.js";
import type { Collector } from "./plugin-driver.js";
import type { ToolResult } from "./types.js";

/** @internal The raw table; only the host and its gate hold it. */
export function createHooks() {
  return Object.freeze({
    /** AsyncSeriesWaterfall(config, env): after the config files are read and the plugins loaded, before any `setup`; each plugin may return config to merge. */
    config: new AsyncSeriesWaterfallHook<[AgentConfig, ConfigEnv]>(["config", "env"]),
    /** AsyncSeries(providers): after every `setup`, first of the register hooks; plugins add model providers. */
    registerProviders: new AsyncSeriesHook<[ProviderRegistrar]>(["providers"]),
    /** AsyncSeries(tools): after `registerProviders`; plugins add tools. Every add passes the registration gate. */
    registerTools: new AsyncSeriesHook<[ToolRegistrar]>(["tools"]),
    /** AsyncSeries(commands): after `registerTools`; plugins add slash commands. */
    registerCommands: new AsyncSeriesHook<[CommandRegistrar]>(["commands"]),
    /** AsyncSeries(skills): after `registerCommands`, last before the host is ready; plugins add skills. */
    registerSkills: new AsyncSeriesHook<[SkillRegistrar]>(["skills"]),
    /** AsyncSeries(session): the conversation starts (a session's first run, or the first after a clear); each handler may return context for the system prompt. */
    sessionStart: new AsyncSeriesHook<[Collector<SessionStartInfo>]>(["session"]),
    /** AsyncSeries(prompt): a prompt is about to enter the conversation; each handler may block it or add context to it. */
    userPromptSubmit: new AsyncSeriesHook<[Collector<UserPromptInfo>]>(["prompt"]),
    /** AsyncSeriesWaterfall(request): before every model request; context assembly (system prompt, skills, tools). */
    beforeModelRequest: new AsyncSeriesWaterfallHook<[ModelRequest]>(["request"]),
    /** AsyncSeries(check): after validation, when the gate decides a call's permission; each handler may vote (deny beats ask beats allow) or rewrite the input. */
    permission: new AsyncSeriesHook<[Collector<PermissionCheck>]>(["check"]),
    /** AsyncSeries(request): the user is about to be asked about a call; a handler may answer (deny always, allow only for what the mode asks). */
    permissionRequest: new AsyncSeriesHook<[Collector<PermissionPromptInfo>]>(["request"]),
    /** AsyncSeriesBail(call): after validation and permission, before the tool runs; a denial stops the call, a rewrite is seen by later handlers and decided again. */
    beforeToolCall: new AsyncSeriesBailHook<[ToolCallInfo], BeforeToolCallDecision | undefined>(["call"]),
    /** AsyncSeriesWaterfall(result, call): after the tool ran (or threw, or timed out) and its output was capped; may transform the result (capped again after the last). */
    afterToolCall: new AsyncSeriesWaterfallHook<[ToolResult, ToolCallInfo]>(["result", "call"]),
    /** AsyncSeries(stop): the model finished its answer; a handler may ask the run to go on, with a message for the model. */
    stop: new AsyncSeriesHook<[Collector<StopInfo>]>(["stop"]),
    /** AsyncSeries(compaction): before the conversation is compacted; a handler may block it. */
    preCompact: new AsyncSeriesHook<[Collector<CompactInfo>]>(["compaction"]),
    /** Sync(event): every AgentEvent, for renderers, loggers and telemetry. */
    event: new SyncHook<[AgentEvent]>(["event"]),
    /** AsyncParallel(session): the conversation ended (cleared, or the host closes, before `shutdown`). */
    sessionEnd: new AsyncParallelHook<[SessionEndInfo]>(["session"]),
    /** AsyncParallel(): when the host closes; close connections and stop child processes. */
    shutdown: new AsyncParallelHook<[]>([]),
  });
}

/** @internal */
export type RawHooks = ReturnType<typeof createHooks>;
export type HookName = keyof RawHooks;
export const HOOK_NAMES = Object.keys(createHooks()) as HookName[];

/**
 * Options of a tap, as tapable takes them. The tap is always named after the plugin that made it, so
 * `name` (like a string in its place) is accepted and ignored: failures are reported with the plugin's name.
 */
export interface TapOptions {
  name?: string;
}

/** Options of an `event` tap: the event types it wants (the others never reach it). */
export interface EventTapOptions extends TapOptions {
  /**
   * Only these event types reach the handler. A host whose event handlers all name types builds no
   * event of the other types (a call's `tool_start` / `tool_end` cost something to build).
   */
  types?: readonly AgentEventType[];
}

/** A hook as plugins see it: tap only. A handler that throws or does not settle in time is reported and skipped. */
export interface Tappable<Args extends unknown[], R> {
  /** Add a handler; for async hooks it may return a promise. */
  tap(options: string | TapOptions, handler: (...args: Args) => R | Promise<R>): void;
  /** Add a promise-returning handler. */
  tapPromise(options: string | TapOptions, handler: (...args: Args) => Promise<R>): void;
  /** Add a callback-style handler (`callback(err, result)`). */
  tapAsync(options: string | TapOptions, handler: (...args: [...Args, (err?: unknown, result?: R) => void]) => void): void;
}

/** A synchronous hook (`event`): tap only, and the handler must not return a promise. */
export interface SyncTappable<Args extends unknown[]> {
  tap(options: string | EventTapOptions, handler: (...args: Args) => void): void;
}

/**
 * The hook table a plugin (`ctx.hooks`) or an embedder (`host.hooks`) gets. Arguments are copies or
 * frozen values: the only way to change a call is to return a decision the gate checks again.
 */
export interface HookTable {
  /** Only a plugin object's own `config` handler takes part (it runs before any setup); tapping it in `setup` is too late and throws. */
  readonly config: Tappable<[AgentConfig, ConfigEnv], Partial<AgentConfig> | void>;
  readonly registerProviders: Tappable<[ProviderRegistrar], void>;
  readonly registerTools: Tappable<[ToolRegistrar], void>;
  readonly registerCommands: Tappable<[CommandRegistrar], void>;
  readonly registerSkills: Tappable<[SkillRegistrar], void>;
  readonly sessionStart: Tappable<[SessionStartInfo], SessionStartResult | void>;
  readonly userPromptSubmit: Tappable<[UserPromptInfo], UserPromptDecision | void>;
  readonly beforeModelRequest: Tappable<[ModelRequest], ModelRequest | void>;
  readonly permission: Tappable<[PermissionCheck], PermissionVote | void>;
  readonly permissionRequest: Tappable<[PermissionPromptInfo], PermissionPromptAnswer | void>;
  readonly beforeToolCall: Tappable<[ToolCallInfo], BeforeToolCallDecision | void>;
  readonly afterToolCall: Tappable<[ToolResult, ToolCallInfo], ToolResult | void>;
  readonly stop: Tappable<[StopInfo], StopDecision | void>;
  readonly preCompact: Tappable<[CompactInfo], CompactDecision | void>;
  readonly event: SyncTappable<[AgentEvent]>;
  readonly sessionEnd: Tappable<[SessionEndInfo], void>;
  readonly shutdown: Tappable<[], void>;
}
