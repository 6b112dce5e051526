/**
 * The hook table: one frozen object of tapable hooks, as webpack's `Compiler.hooks`.
 * Plugins normally declare typed handlers on their plugin object and let the host tap them;
 * power users tap `ctx.hooks.<name>` directly (still under their plugin's name, so errors are wrapped).
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from "tapable";
import type { AgentConfig } from "./config-schema.js";
import type { AgentEvent } from "./events.js";
import type { ModelRequest } from "./model.js";
import type {
  BeforeToolCallDecision,
  CommandRegistrar,
  ProviderRegistrar,
  SkillRegistrar,
  ToolCallInfo,
  ToolRegistrar,
  ToolResult,
} from "./types.js";

export function createHooks() {
  return Object.freeze({
    /** AsyncSeriesWaterfall(config): after config files are loaded; each plugin may return an adjusted config. */
    config: new AsyncSeriesWaterfallHook<[AgentConfig]>(["config"]),
    /** AsyncSeries(tools): once at startup, after `setup`; plugins add tools. Every add passes the registration gate. */
    registerTools: new AsyncSeriesHook<[ToolRegistrar]>(["tools"]),
    /** AsyncSeries(commands): once at startup, after `registerTools`; plugins add slash commands. */
    registerCommands: new AsyncSeriesHook<[CommandRegistrar]>(["commands"]),
    /** AsyncSeries(skills): once at startup, after `registerCommands`; plugins add skills. */
    registerSkills: new AsyncSeriesHook<[SkillRegistrar]>(["skills"]),
    /** AsyncSeries(providers): once at startup, first of the register hooks; plugins add model providers. */
    registerProviders: new AsyncSeriesHook<[ProviderRegistrar]>(["providers"]),
    /** AsyncSeriesWaterfall(request): before every model request; context assembly (system prompt, skills, tools). */
    beforeModelRequest: new AsyncSeriesWaterfallHook<[ModelRequest]>(["request"]),
    /** AsyncSeriesBail(call): after validation and permission, before the tool runs; first decision (deny or new input) wins. */
    beforeToolCall: new AsyncSeriesBailHook<[ToolCallInfo], BeforeToolCallDecision | undefined>(["call"]),
    /** AsyncSeriesWaterfall(result, call): after the tool ran and its output was capped; may transform the result. */
    afterToolCall: new AsyncSeriesWaterfallHook<[ToolResult, ToolCallInfo]>(["result", "call"]),
    /** Sync(event): every AgentEvent, for renderers, loggers and telemetry. */
    event: new SyncHook<[AgentEvent]>(["event"]),
    /** AsyncParallel(): when the host closes; close connections and stop child processes. */
    shutdown: new AsyncParallelHook<[]>([]),
  });
}

export type HookTable = ReturnType<typeof createHooks>;
export type HookName = keyof HookTable;
export const HOOK_NAMES = Object.keys(createHooks()) as HookName[];
