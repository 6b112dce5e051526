/**
 * The hook table: one frozen object of tapable hooks, as webpack's `Compiler.hooks`, declared in
 * lifecycle order. The host holds the only raw table; plugins (and embedders, through `host.hooks`)
 * get a tap-only view of it (`HookTable`): they can add their handlers, never list, remove, reorder
 * or intercept anyone else's, nor call a hook themselves.
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from "tapable";
import type { AgentConfig } from "./config-schema.js";
import type { AgentEvent } from "./events.js";
import type { ModelRequest } from "./model.js";
import type { BeforeToolCallDecision, ConfigEnv, ToolCallInfo } from "./plugin-types.js";
import type { CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "./plugin-types.js";
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
    /** AsyncSeriesWaterfall(request): before every model request; context assembly (system prompt, skills, tools). */
    beforeModelRequest: new AsyncSeriesWaterfallHook<[ModelRequest]>(["request"]),
    /** AsyncSeriesBail(call): after validation and permission, before the tool runs; a denial stops the call, a rewrite is seen by later handlers and decided again. */
    beforeToolCall: new AsyncSeriesBailHook<[ToolCallInfo], BeforeToolCallDecision | undefined>(["call"]),
    /** AsyncSeriesWaterfall(result, call): after the tool ran and its output was capped; may transform the result (capped again after the last). */
    afterToolCall: new AsyncSeriesWaterfallHook<[ToolResult, ToolCallInfo]>(["result", "call"]),
    /** Sync(event): every AgentEvent, for renderers, loggers and telemetry. */
    event: new SyncHook<[AgentEvent]>(["event"]),
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
  tap(options: string | TapOptions, handler: (...args: Args) => void): void;
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
  readonly beforeModelRequest: Tappable<[ModelRequest], ModelRequest | void>;
  readonly beforeToolCall: Tappable<[ToolCallInfo], BeforeToolCallDecision | void>;
  readonly afterToolCall: Tappable<[ToolResult, ToolCallInfo], ToolResult | void>;
  readonly event: SyncTappable<[AgentEvent]>;
  readonly shutdown: Tappable<[], void>;
}
