/**
 * The hook table, declared once, in lifecycle order (webpack's `Compiler.hooks`): per hook its tapable
 * kind, the argument names, what the host passes, what a handler is handed and may return, what its
 * failure means and which timeout bounds it (hook-entry.ts). Everything else is derived from `HOOKS`:
 * the raw table the host runs (`createHooks`), the tap-only view plugins and embedders get (`HookTable`),
 * the plugin object's handler methods (`PluginHooks`), `HOOK_NAMES`, and, in plugin-driver.ts, the
 * adapters (a record that must name every hook) and the tapping of a plugin object's methods.
 * Adding a hook is one entry here plus its adapter; forgetting the adapter does not compile. The register
 * hooks follow the registration kinds (kinds.ts) and are checked against them.
 */
import type { AgentConfig } from "../config/config-schema.js";
import type { AgentEvent } from "./events.js";
import type { ModelRequest } from "../loop/model.js";
import type { AgentRegistrar, CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "../registry/registrar-types.js";
import type {
  AttributedDecision,
  BeforeToolCallDecision,
  Collector,
  CompactAskedPoint,
  CompactDecision,
  CompactInfo,
  CompactionRequest,
  CompactionResult,
  ConfigEnv,
  FailingCollector,
  ModelErrorDecision,
  ModelErrorInfo,
  ModelTurnPoint,
  PermissionCheck,
  PermissionPromptAnswer,
  PermissionPromptInfo,
  PermissionVote,
  SessionEndInfo,
  SessionLoadAnswer,
  SessionLoadRequest,
  SessionStartInfo,
  SessionStartResult,
  StopDecision,
  StopInfo,
  SubagentStartInfo,
  SubagentStopInfo,
  SystemPromptInfo,
  SystemPromptSection,
  ToolCallInfo,
  ToolCallState,
  TranscriptAnswer,
  TranscriptBatch,
  UserPromptDecision,
  UserPromptInfo,
} from "./hook-types.js";
import { BailHook, ParallelHook, SeriesHook, SyncSeriesHook, WaterfallHook } from "./hook-entry.js";
import type { KindName, RegisterHookOf, RegistrarOf } from "../registry/kinds.js";
import type { SyncTappable, Tappable } from "./tap-types.js";
import type { DeepReadonly, ToolResult } from "../types.js";

/** @internal The declaration every part of the hook surface is derived from. */
export const HOOKS = Object.freeze({
  /** AsyncSeriesWaterfall(config, env): after the config files are read and the plugins loaded, before any `setup`; each plugin may return config to merge. Only a plugin object's own `config` handler takes part: tapping it in `setup` is too late and throws. A plugin's `config` handler cannot loosen permissions, the workspace or the audit; it sees `plugins` by name only. */
  config: new WaterfallHook<[AgentConfig, ConfigEnv], [AgentConfig, ConfigEnv], Partial<AgentConfig>, [Readonly<AgentConfig>, ConfigEnv]>({ args: ["config", "env"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(providers): after every `setup`, first of the register hooks; plugins add model providers. */
  registerProviders: new SeriesHook<[ProviderRegistrar]>({ args: ["providers"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(tools): after `registerProviders`; plugins add tools. Every add passes the registration gate. */
  registerTools: new SeriesHook<[ToolRegistrar]>({ args: ["tools"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(commands): after `registerTools`; plugins add slash commands. */
  registerCommands: new SeriesHook<[CommandRegistrar]>({ args: ["commands"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(skills): after `registerCommands`; plugins add skills. */
  registerSkills: new SeriesHook<[SkillRegistrar]>({ args: ["skills"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(agents): after `registerSkills`, last before the host is ready; plugins add subagent definitions. */
  registerAgents: new SeriesHook<[AgentRegistrar]>({ args: ["agents"], failure: "skip", timeout: "startup" }),
  /** AsyncSeries(session): the conversation starts (a session's first run, or the first after a clear); each handler may return `{ context }` for the system prompt. */
  sessionStart: new SeriesHook<[Collector<SessionStartInfo>], [SessionStartInfo], SessionStartResult>({ args: ["session"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(request): `session.resume` asks for a saved conversation (`id`: an id, a prefix or `last`; `forkId` for a fork); the first handler that answers `{ session }` or `{ error }` decides (the `sessions` plugin). */
  sessionLoad: new SeriesHook<[Collector<SessionLoadRequest>], [SessionLoadRequest], SessionLoadAnswer>({ args: ["request"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(prompt): a prompt is about to enter the conversation; `{ block }` stops it, `{ context }` adds to it; a failing handler blocks it. */
  userPromptSubmit: new SeriesHook<[FailingCollector<UserPromptInfo>], [UserPromptInfo], UserPromptDecision>({ args: ["prompt"], failure: "block", timeout: "call" }),
  /** AsyncSeries(prompt): the system prompt is put together (each run, compaction, a subagent); each handler may return `{ section }`, appended after the base in tap order (project instructions: the `instructions` plugin). */
  systemPrompt: new SeriesHook<[Collector<SystemPromptInfo>], [SystemPromptInfo], SystemPromptSection>({ args: ["prompt"], failure: "skip", timeout: "call" }),
  /** AsyncSeriesWaterfall(request): before every model request; context assembly (system prompt, skills, tools). */
  beforeModelRequest: new WaterfallHook<[ModelRequest]>({ args: ["request"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(point): before each model request of a run, after `beforeModelRequest`: the request's size (`chars`) for the plugin that manages the context (the `compaction` plugin), which may compact the conversation (`point.compact`); the kernel then rebuilds the request and hands it once more (`compacted: true`). Bounded by the run: a compaction waits for the model. */
  fitContext: new SeriesHook<[ModelTurnPoint]>({ args: ["point"], failure: "skip", timeout: "model" }),
  /** AsyncSeries(failure): a run's model request failed after its retries; `{ retry: true }` sends it again, rebuilt, once (after `point.compact`: a context-length error), `{ note }` is added to the error the run ends with; the first answer decides. Bounded by the run. */
  modelError: new SeriesHook<[Collector<ModelErrorInfo>], [ModelErrorInfo], ModelErrorDecision>({ args: ["failure"], failure: "skip", timeout: "model" }),
  /** AsyncSeries(check): after validation, when the gate decides a call's permission; each handler may vote `{ decision, reason }` (deny beats ask beats allow) or rewrite `{ input }`; a failing handler denies. */
  permission: new SeriesHook<[FailingCollector<PermissionCheck>], [PermissionCheck], PermissionVote>({ args: ["check"], failure: "deny", timeout: "call" }),
  /** AsyncSeries(request): the user is about to be asked about a call; a handler may answer `{ decision: "allow" | "deny" }` in their place (deny always, allow only for what the mode asks). */
  permissionRequest: new SeriesHook<[Collector<PermissionPromptInfo>], [PermissionPromptInfo], PermissionPromptAnswer>({ args: ["request"], failure: "skip", timeout: "call" }),
  /** AsyncSeriesBail(call): after validation and permission, before the tool runs; a denial stops the call, a rewrite is seen by later handlers and decided again; a failing handler denies. */
  beforeToolCall: new BailHook<[ToolCallState], [ToolCallInfo], BeforeToolCallDecision, AttributedDecision | undefined>({ args: ["call"], failure: "deny", timeout: "call" }),
  /** AsyncSeriesWaterfall(result, call): after the tool ran (or threw, or timed out) and its output was capped; may transform the result (capped again after the last). */
  afterToolCall: new WaterfallHook<[ToolResult, ToolCallState], [ToolResult, ToolCallInfo], ToolResult, [DeepReadonly<ToolResult>, ToolCallInfo]>({ args: ["result", "call"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(stop): the model finished its answer; `{ continue: why }` makes the run go on (bounded), with that message for the model. */
  stop: new SeriesHook<[Collector<StopInfo>], [StopInfo], StopDecision>({ args: ["stop"], failure: "skip", timeout: "call" }),
  /** AsyncParallel(subagent): a subagent (`runDetached`, the `task` tool) starts its own conversation. */
  subagentStart: new ParallelHook<[SubagentStartInfo]>({ args: ["subagent"], failure: "skip", timeout: "call" }),
  /** AsyncParallel(subagent): a subagent finished (its answer, reason, turns and usage); the caller gets its result after this. */
  subagentStop: new ParallelHook<[SubagentStopInfo]>({ args: ["subagent"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(point): `session.compact()` (`/compact`) asks for a compaction now, with the user's `instructions`; the plugin that manages the context compacts (`point.compact`); with no handler (or none on `compact`) it throws `E_USAGE`. Bounded by the caller's signal. */
  compactAsked: new SeriesHook<[CompactAskedPoint]>({ args: ["point"], failure: "skip", timeout: "model" }),
  /** AsyncSeries(compaction): before the conversation is compacted; `{ block: why }` keeps it as it is. */
  preCompact: new SeriesHook<[Collector<CompactInfo>], [CompactInfo], CompactDecision>({ args: ["compaction"], failure: "skip", timeout: "call" }),
  /** AsyncSeries(compaction): the conversation is compacted (near the window, after a context-length error, `session.compact()`), once `preCompact` let it; the first handler that answers decides (the `compaction` plugin). Bounded by the run, not by a plugin timeout: it waits for the model's summary. */
  compact: new SeriesHook<[Collector<CompactionRequest>], [CompactionRequest], CompactionResult>({ args: ["compaction"], failure: "skip", timeout: "model" }),
  /** Sync(batch): what the conversation committed after each finished step (messages, usage, a compaction, a rewrite, a clear), for the session transcript (the `sessions` plugin); a handler may answer `{ file }`, the session's `transcriptPath`. */
  transcript: new SyncSeriesHook<[Collector<TranscriptBatch>], [TranscriptBatch], TranscriptAnswer>({ args: ["batch"], failure: "skip", timeout: "call" }),
  /** Sync(event): every AgentEvent, frozen, for renderers, loggers and telemetry. */
  event: new SyncSeriesHook<[AgentEvent]>({ args: ["event"], failure: "skip", timeout: "call" }),
  /** AsyncParallel(session): the conversation ended (cleared, or the host closes, before `shutdown`). */
  sessionEnd: new ParallelHook<[SessionEndInfo]>({ args: ["session"], failure: "skip", timeout: "shutdown" }),
  /** AsyncParallel(): when the host closes; close connections and stop child processes. */
  shutdown: new ParallelHook<[]>({ args: [], failure: "skip", timeout: "shutdown" }),
});

/**
 * The register entries, one per registration kind (kinds.ts), each handed its kind's registrar: a kind
 * without its entry, or an entry handed another registrar, does not compile. (Written out above for their
 * doc comments and lifecycle order; tests/core/agents-kind.test.ts checks the order is the kinds'.)
 */
type RegisterEntries = { readonly [K in KindName as RegisterHookOf<K>]: SeriesHook<[RegistrarOf<K>]> };
const REGISTER_ENTRIES_MATCH_KINDS: RegisterEntries = HOOKS;
void REGISTER_ENTRIES_MATCH_KINDS;

type Spec = typeof HOOKS;
export type HookName = keyof Spec;
export const HOOK_NAMES = Object.keys(HOOKS) as HookName[];

/** What the host passes to hook `K` (and its adapter gets). */
export type HostArgs<K extends HookName> = Spec[K]["types"]["host"];
/** What a plugin object's method for `K` is handed. */
export type HandedArgs<K extends HookName> = Spec[K]["types"]["handed"];
type ViewArgs<K extends HookName> = Spec[K]["types"]["view"];
type Out<K extends HookName> = Spec[K]["types"]["out"];

/** @internal The raw table; only the host and its gate hold it. */
export type RawHooks = { readonly [K in HookName]: ReturnType<Spec[K]["create"]> };

/** @internal A new raw table: one tapable hook per entry, frozen. */
export function createHooks(): RawHooks {
  const raw = Object.fromEntries(HOOK_NAMES.map((name) => [name, HOOKS[name].create()]));
  // Object.fromEntries forgets which key holds which hook; each came from its own entry's `create`.
  return Object.freeze(raw) as RawHooks;
}

/**
 * The hook table a plugin (`ctx.hooks`) or an embedder (`host.hooks`) gets. Arguments are copies or
 * frozen values: the only way to change a call is to return a decision the gate checks again.
 */
export type HookTable = {
  readonly [K in HookName]: Spec[K]["kind"] extends "sync" ? SyncTappable<ViewArgs<K>, Out<K>> : Tappable<ViewArgs<K>, Out<K> | void>;
};

/** A method's type, checked as methods are (bivariantly), so a handler may name a narrower argument type. */
type Method<Args extends unknown[], R> = { method(...args: Args): R }["method"];

/** Typed hook handlers a plugin object may declare; the host taps them under the plugin's name. */
export type PluginHooks = {
  [K in HookName]?: Spec[K]["kind"] extends "sync" ? Method<HandedArgs<K>, Out<K> | void> : Method<HandedArgs<K>, Out<K> | void | Promise<Out<K> | void>>;
};
