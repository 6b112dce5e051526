/**
 * What the session, prompt and permission hooks hand their handlers and what they may return. Every
 * argument is a frozen copy; a handler changes what happens only through its return value, which the
 * host checks. The tool-call hooks' and the `config` hook's types are here too, below the plugin
 * contract (contract.ts) and the hook table (hooks.ts) that both name them.
 */
import type { ConfigTrust } from "../config/trust.js";
import type { StopReason } from "./events.js";
import type { ModelMessage, ModelRequest } from "../loop/model.js";
import type { CallAgentInfo, DeepReadonly, PermissionMode, RegisteredTool } from "../types.js";

/**
 * The argument of a hook whose handlers' answers the host gathers (permission votes, prompt context,
 * stop requests): each handler is handed `view()`, and what it returns goes to `take`.
 */
export interface Collector<V> {
  /** What a handler is handed: a frozen copy (rebuilt after a rewrite; a promise while it is worked out). */
  view(): V | Promise<V>;
  /** A handler's return value: a problem (reported with plugin and hook) when it is not an answer this hook takes. */
  take(plugin: string, value: unknown): string | undefined;
}

/** The collector of a hook whose failure policy is `deny` or `block`: a failed handler counts against the step. */
export interface FailingCollector<V> extends Collector<V> {
  /** The handler threw, timed out or returned garbage: record the denial or the block. */
  fail(plugin: string, message: string): void;
}

/**
 * The argument `beforeToolCall` handlers run on: the gate's own record of the call. A handler sees
 * `view()` (a frozen copy); a rewrite replaces `input` for the handlers after it and for the gate.
 */
export interface ToolCallState {
  view(): ToolCallInfo;
  rewrite(plugin: string, input: unknown): void;
}

/** A `beforeToolCall` decision, with who made it. */
export type AttributedDecision = { deny: string; plugin: string };

/** What the session hooks' views share: the session, its folder and permission mode, the run's signal. */
interface SessionView {
  readonly sessionId: string;
  readonly cwd: string;
  readonly mode: PermissionMode;
  /** The run's signal (Ctrl-C cancels it). */
  readonly signal?: AbortSignal;
}

/** The conversation starts: the first run of a session, or the first after `session.clear()`. */
export interface SessionStartInfo extends SessionView {
  /** `startup`: the session's first run; `clear`: the first run after the conversation was cleared; `resume`: the first after a saved session was resumed. */
  readonly source: "startup" | "clear" | "resume";
  /** `provider:model` of the run that starts it. */
  readonly model: string;
}

/** `context` is added to the system prompt of every request until the conversation ends. */
export type SessionStartResult = { context: string };

/**
 * The system prompt is being put together (every run, compaction's measure of it, a subagent's run):
 * `base` is config's `systemPrompt`, the run's, or the default. A handler adds to it; it cannot change it.
 */
export interface SystemPromptInfo {
  readonly base: string;
  /** The folder the run works in (instruction files are read from the project root down to it). */
  readonly cwd: string;
  /** The user config folder whose own files may be added; undefined with user config off, and for a subagent (it gets the project's only). */
  readonly userConfigDir?: string;
}

/** `section` is appended to the system prompt after `base`, sections in tap order, each after a blank line. */
export type SystemPromptSection = { section: string };

/** The conversation ended: cleared (`session.clear()`), or the host closed. */
export interface SessionEndInfo extends Omit<SessionView, "signal"> {
  readonly reason: "clear" | "close";
}

/** A subagent starts (`runDetached`): who, for which call, on which model. */
export interface SubagentStartInfo {
  readonly sessionId: string;
  /** The agent's name (its `subagent_type`). */
  readonly agent: string;
  /** The call that started it (the `task` call). */
  readonly parentCallId?: string;
  readonly model: string;
  readonly cwd: string;
}

/** A subagent finished: how, after how many turns, with what answer. */
export interface SubagentStopInfo extends SubagentStartInfo {
  readonly reason: StopReason;
  /** Its last answer (what the caller gets). */
  readonly text: string;
  readonly turns: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

/** A prompt about to be sent: the user's text as typed, before it reaches the conversation. */
export interface UserPromptInfo extends SessionView {
  readonly prompt: string;
}

/**
 * `block`: the prompt is not sent (nor kept in the conversation) and the run ends with reason
 * `stopped`; the reason is shown to the user. `context`: text added to the user's message, after it.
 */
export type UserPromptDecision = { block: string } | { context: string };

/** What rules and the mode decide for a call: `by` is the rule, `mode:<mode>`, or what else decided. */
export interface PermissionVerdict {
  readonly decision: "allow" | "ask" | "deny";
  readonly by: string;
}

/** A call as `permission` handlers see it: the call, what rules match in it, and the rules' verdict. */
export interface PermissionCheck<I = unknown> extends ToolCallInfo<I> {
  /** What permission rules match for this input (each command of a shell line, a path relative to the project root). */
  readonly subjects?: readonly string[];
  /** What the rules and the mode decide for this input, before any plugin votes. */
  readonly verdict: PermissionVerdict;
  readonly mode: PermissionMode;
  /** The caller's signal (Ctrl-C cancels it): stop slow work when it fires. */
  readonly signal?: AbortSignal;
}

/**
 * A `permission` handler's vote. `deny` denies the call; `ask` puts it to the user (headless: denied),
 * even where rules or the mode allow it; `allow` skips a question the mode would ask, and nothing
 * else: deny rules, ask rules and plan mode still decide. `input` replaces the call's input for later
 * handlers and the gate, which validates it and decides again; an `allow` counts only for the input it
 * was cast on (a later handler's rewrite voids it). Several handlers: deny beats ask beats allow.
 */
export interface PermissionVote {
  decision?: "allow" | "ask" | "deny";
  /** Shown with the decision (to the model for a denial, to the user in a question). */
  reason?: string;
  input?: unknown;
}

/** The user is about to be asked about a call (in a terminal or not): what `permissionRequest` handlers see. */
export interface PermissionPromptInfo<I = unknown> extends ToolCallInfo<I>, Pick<PermissionCheck<I>, "subjects" | "mode" | "signal"> {
  /** Why the question is asked: `mode:<mode>`, an ask rule, or `plugin:<name>` for a plugin's `ask` vote. */
  readonly reason: string;
  /** True when the question comes from the mode alone: only then is an `allow` answer taken. */
  readonly answerable: boolean;
  /** The rules that would allow exactly this call without asking. */
  readonly suggestedRules: readonly string[];
}

/**
 * An answer in the user's place. `deny` is always taken. `allow` is taken only for a question the mode
 * asks (`answerable`): one an ask rule or a plugin's `ask` vote raised goes to the user. `input` (with
 * `allow`) replaces the input; the gate validates it and decides again (a deny rule still denies it).
 * Several handlers: deny beats allow; with no answer the user is asked.
 */
export interface PermissionPromptAnswer extends Omit<PermissionVote, "decision"> {
  decision: "allow" | "deny";
}

/** The model finished its answer (no tool calls left): the run is about to end. */
export interface StopInfo extends Omit<SessionView, "cwd"> {
  /** True when the run goes on because a `stop` handler asked it to (check it to avoid looping). */
  readonly stopHookActive: boolean;
  /** The text of the model's last message. */
  readonly lastMessage: string;
  readonly turns: number;
}

/**
 * `continue`: the run goes on, with this text sent to the model as the next user message (why it should
 * not stop yet). Bounded: after 8 continuations in a row, or at the turn limit, the run ends anyway.
 */
export type StopDecision = { continue: string };

/** The conversation is about to be compacted (summarized to fit the context window). */
export interface CompactInfo extends Pick<SessionView, "sessionId" | "mode"> {
  /** `manual`: the user asked for it; `auto`: the context window is full. */
  readonly trigger: "manual" | "auto";
  /** What the user asked the summary to keep (manual compaction), or "". */
  readonly instructions: string;
}

/**
 * `block`: the conversation is not compacted; the reason is shown to the user. `instructions`: added to
 * what the summary is asked to keep (several handlers' instructions are joined).
 */
export type CompactDecision = { block: string } | { instructions: string };

/**
 * What a `compact` handler is handed: the conversation to make fit (a frozen copy) and the figures of the
 * window, after `preCompact` let it happen. `tokens` is the context plugin's estimate of a request with those
 * messages (the run's system prompt and tools included); `summarize` sends a request to the run's model
 * and resolves with the text of its answer.
 */
export interface CompactionRequest extends Pick<CompactionAsk, "trigger" | "window" | "targetTokens" | "keepRecentTokens" | "charsPerToken"> {
  readonly sessionId: string;
  /** Summarise even when shortening alone seems enough (the provider said the request was too long). */
  readonly force: boolean;
  /** What the summary must keep: the user's focus, then what `preCompact` handlers added. */
  readonly instructions: readonly string[];
  readonly messages: readonly DeepReadonly<ModelMessage>[];
  /** The model of the run (for the summary request). */
  readonly model: string;
  tokens(messages: readonly DeepReadonly<ModelMessage>[]): number;
  summarize(request: ModelRequest): Promise<string>;
}

/**
 * A `compact` handler's answer: the conversation to go on with (`messages`, when anything changed),
 * what was done, and `ok: false` with a `reason` when it did not work.
 */
export interface CompactionResult {
  ok: boolean;
  /** Why nothing was compacted (blocked, nothing to summarise, the summary request failed). */
  reason?: string;
  /** Tool results shortened. */
  shortened: number;
  /** Messages replaced by the summary. */
  summarized: number;
  summary?: string;
  messages?: ModelMessage[];
}

/** What a compaction did (`host.session.compact()`, the `/compact` command, `ContextPoint.compact`). */
export interface CompactOutcome extends Omit<CompactionResult, "messages"> {
  blockedBy?: string;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * What a context manager asks the kernel to compact with (`ContextPoint.compact`): why, and the figures the
 * `compact` handlers get. `tokens` is its estimate of a request `chars` characters long.
 */
export interface CompactionAsk {
  readonly trigger: "manual" | "auto";
  /** Asked for (`manual`), near the window (`threshold`), refused as too long (`context_length`: `compact` handlers get `force`). */
  readonly cause: "manual" | "threshold" | "context_length";
  /** What the user asked the summary to keep (manual compaction). */
  readonly instructions?: string;
  /** The context window, in tokens. */
  readonly window: number;
  /** An automatic compaction may stop once the request is estimated under this many tokens. */
  readonly targetTokens: number;
  /** Config `compaction.keepRecentTokens`. */
  readonly keepRecentTokens?: number;
  /** Characters per token as the provider counts them (learnt from its usage reports). */
  readonly charsPerToken: number;
  tokens(chars: number): number;
}

/**
 * A point where the conversation's size matters (`fitContext`, `modelError`, `compactAsked`): the request's
 * size, and `compact`, which runs `preCompact` then `compact` on the conversation; the result replaces it, is
 * a transcript record and a `compaction` event (a notice when nothing was compacted).
 */
export interface ContextPoint extends Pick<SessionView, "sessionId" | "mode"> {
  /** `provider:model` the request goes to. */
  readonly model: string;
  /** The request's size in characters (system prompt, messages, tools; `messageChars` of each message). */
  readonly chars: number;
  compact(ask: CompactionAsk): Promise<CompactOutcome>;
}

/** A run's model request is about to go (`fitContext`). */
export interface ModelTurnPoint extends ContextPoint {
  /** The run's request number: 1 for its first. */
  readonly turn: number;
  /** The request was rebuilt after this turn's compaction (or a refusal's): measure it, do not compact again. */
  readonly compacted: boolean;
}

/** A run's model request failed after its retries (`modelError`). */
export interface ModelErrorInfo extends ContextPoint {
  readonly error: { readonly code: string; readonly message: string };
  /** The request had been sent again after a `{ retry }`: another is not taken. */
  readonly retried: boolean;
}

/** `retry`: the request is rebuilt and sent once more (after a compaction); `note`: added to the error the run ends with. */
export type ModelErrorDecision = { retry: true } | { note: string };

/** `session.compact()` or `/compact` asks for a compaction now (`compactAsked`). */
export interface CompactAskedPoint extends ContextPoint {
  /** What the user asked the summary to keep, if anything. */
  readonly instructions?: string;
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
  /** The subagent that makes the call (a `task` tool's run); absent for the main conversation's calls. */
  readonly agent?: CallAgentInfo;
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

/** What the conversation committed since the last batch (the transcript's records, as `.agent/sessions/<id>.jsonl` holds them). */
export type TranscriptRecord =
  | { type: "message"; time: string; message: ModelMessage }
  | { type: "usage"; time: string; inputTokens: number; outputTokens: number }
  | { type: "compaction"; time: string; trigger: "manual" | "auto"; summary: string; tokensBefore: number; tokensAfter: number; messages: ModelMessage[] }
  | { type: "rewrite"; time: string; reason: string; messages: ModelMessage[] }
  | { type: "clear"; time: string };

/**
 * What a `transcript` handler is handed after each finished step: the session, the model of the run
 * (else the session's), and what is new. `records` is empty when the host only asks where the transcript is.
 */
export interface TranscriptBatch {
  readonly sessionId: string;
  readonly model: string | undefined;
  readonly records: readonly DeepReadonly<TranscriptRecord>[];
}

/** A `transcript` handler's answer: the file this session's transcript is written to (`session.transcriptPath`). */
export type TranscriptAnswer = { file: string };

/** What `session.resume` asks the `sessionLoad` handlers for. */
export interface SessionLoadRequest {
  /** An id, the start of exactly one id, or `last`. */
  readonly id: string;
  /** Set for a fork: the id the copy goes on under. */
  readonly forkId?: string;
}

/** A `sessionLoad` handler's answer: the saved conversation, or why there is none (`E_USAGE`). */
export type SessionLoadAnswer =
  | { session: { id: string; messages: ModelMessage[]; usage: { inputTokens: number; outputTokens: number }; damaged?: string } }
  | { error: string };

/** What `session.resume` resolves with. */
export interface ResumeResult {
  /** The id the conversation goes on under (a new one for a fork). */
  id: string;
  /** The session that was loaded. */
  from: string;
  forked: boolean;
  messages: number;
  /** Set when the transcript's tail was damaged and dropped. */
  damaged?: string;
}
