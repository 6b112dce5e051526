/**
 * What the kernel does of context management: it hands the points where the conversation's size matters to
 * the plugin that manages it (`fitContext` before each model request, `modelError` after a failed one,
 * `compactAsked` for `session.compact()`) with the request's size, and compacts when that plugin asks
 * (`ContextPoint.compact`): `preCompact` may block, the `compact` hook's first answer replaces the
 * conversation, which is a transcript record and a `compaction` event. Only the kernel calls hooks and keeps
 * the transcript; the window, the estimate and when to compact are the `compaction` plugin's.
 */
import { replaceAll } from "../../kit/array-bulk.js";
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import { FirstAnswer } from "../hooks/hook-adapters.js";
import type { AgentEvent } from "../hooks/events.js";
import type { CompactInfo, CompactionAsk, CompactionRequest, CompactionResult, CompactOutcome, ContextPoint, ModelErrorDecision, ModelErrorInfo } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession } from "../host-types.js";
import type { ModelMessage, ModelProvider, ModelRequest } from "../loop/model.js";
import { requestChars } from "../loop/request-size.js";
import { BlockCollector } from "./session-lifecycle.js";
import type { Transcript } from "./transcript.js";
import type { DeepReadonly, PermissionMode } from "../types.js";

/** A `compact` answer: `{ ok, shortened, summarized, messages? }`. */
function isResult(out: unknown): boolean {
  const r = out as Partial<CompactionResult> | null;
  return typeof r === "object" && r !== null && typeof r.ok === "boolean" && typeof r.shortened === "number" && typeof r.summarized === "number" && (r.messages === undefined || Array.isArray(r.messages));
}

/** `modelError`: the first `{ retry: true }` or `{ note }` decides. */
export const modelErrorDecision = (info: ModelErrorInfo) =>
  new FirstAnswer<ModelErrorInfo, ModelErrorDecision>(info, "{ retry: true } or { note }", (out) => (out as { retry?: unknown }).retry === true || typeof (out as { note?: unknown }).note === "string");

/**
 * The summary request gets a signal of its own, linked to the run's and unlinked when it ends: SDKs leave
 * their abort listener on the signal they are given, and a run may compact many times.
 */
async function collectText(provider: ModelProvider, request: ModelRequest, outer: AbortSignal | undefined): Promise<string> {
  const own = new AbortController();
  const onAbort = () => own.abort(outer?.reason);
  if (outer?.aborted) own.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  try {
    let text = "";
    for await (const ev of provider.stream(request, { signal: own.signal })) if (ev.type === "text_delta") text += ev.text;
    return text.trim();
  } finally {
    outer?.removeEventListener("abort", onAbort);
  }
}

/** The request a point is about: where it goes and what of it counts towards its size besides the messages. */
export interface PointRequest {
  provider: ModelProvider;
  ref: string;
  request: Pick<ModelRequest, "model" | "system" | "tools"> & { messages?: readonly ModelMessage[] };
  signal?: AbortSignal;
}

/** A point handed to handlers, with what the kernel learns of it: the last compaction it ran. */
export interface PointState<P extends ContextPoint> {
  point: P;
  outcome?: CompactOutcome;
}

export class Compactions {
  constructor(
    private readonly hooks: RawHooks,
    private readonly recorder: Transcript,
    private readonly info: () => { sessionId: string; mode: PermissionMode },
    private readonly emit: (e: AgentEvent) => void,
  ) {}

  /** Whether a plugin compacts (taps `compact`) and one asks for it on demand (`compactAsked`). */
  get available(): boolean {
    return this.hooks.compact.isUsed() && this.hooks.compactAsked.isUsed();
  }

  /** The point for the session's conversation and `at`'s request, frozen, with `extra` (the hook's own fields). */
  point<E extends object>(session: AgentSession, at: PointRequest, extra: E): PointState<ContextPoint & E> {
    const state = {} as PointState<ContextPoint & E>;
    const chars = requestChars({ system: at.request.system, messages: at.request.messages ?? session.messages, tools: at.request.tools });
    const compact = async (ask: CompactionAsk) => (state.outcome = await this.compact(session, at, ask));
    state.point = Object.freeze({ ...this.info(), model: at.ref, chars, ...extra, compact });
    return state;
  }

  /** Compact the session's conversation (`compact` after `preCompact`); the outcome is an event (when something changed) and a record. */
  private async compact(session: AgentSession, at: PointRequest, ask: CompactionAsk): Promise<CompactOutcome> {
    const { window, trigger } = ask;
    const messages = session.messages;
    const before = messages.length;
    const size = (m: readonly DeepReadonly<ModelMessage>[]) => ask.tokens(requestChars({ system: at.request.system, messages: m as ModelMessage[], tools: at.request.tools }));
    const tokensBefore = size(messages);
    const outcome = (o: Partial<CompactOutcome>): CompactOutcome => ({ ok: false, tokensBefore, tokensAfter: size(messages), summarized: 0, shortened: 0, ...o });
    const pre = new BlockCollector<CompactInfo>(freezeCopy({ ...this.info(), trigger, instructions: ask.instructions ?? "" }), "instructions");
    if (this.hooks.preCompact.isUsed()) await this.hooks.preCompact.promise(pre);
    if (pre.blocked) return this.failed(outcome({ reason: `blocked by plugin ${pre.blocked.plugin}: ${pre.blocked.reason}`, blockedBy: pre.blocked.plugin }));
    const request = new FirstAnswer<CompactionRequest, CompactionResult>({
      ...freezeCopy({
        sessionId: this.info().sessionId,
        trigger,
        force: ask.cause === "context_length",
        instructions: [ask.instructions?.trim(), ...pre.taken.map((t) => t.text.trim())].filter((t): t is string => !!t),
        messages,
        model: at.request.model,
        window,
        targetTokens: ask.targetTokens,
        ...(ask.keepRecentTokens !== undefined ? { keepRecentTokens: ask.keepRecentTokens } : {}),
        charsPerToken: ask.charsPerToken,
      }),
      tokens: size,
      summarize: (r: ModelRequest) => collectText(at.provider, r, at.signal),
    }, "{ ok, shortened, summarized, messages? }", isResult);
    await this.hooks.compact.promise(request);
    const r = request.answer;
    if (!r) return this.failed(outcome({ reason: "no plugin compacted it" }));
    if (r.messages) replaceAll(messages, plainCopy(r.messages));
    const done = outcome({ ok: r.ok, shortened: r.shortened, summarized: r.summarized, ...(r.reason !== undefined ? { reason: r.reason } : {}), ...(r.summary !== undefined ? { summary: r.summary } : {}) });
    if (!done.ok) return this.failed(done);
    if (done.summary !== undefined) {
      this.recorder.compaction(messages, { trigger, summary: done.summary, tokensBefore: done.tokensBefore, tokensAfter: done.tokensAfter });
    } else this.recorder.sync(messages, "tool results shortened to fit the context window");
    const { summarized, shortened } = done;
    this.emit({ type: "compaction", trigger, cause: ask.cause, tokensBefore: done.tokensBefore, tokensAfter: done.tokensAfter, window, messagesBefore: before, messagesAfter: messages.length, summarized, shortened });
    return done;
  }

  private failed(outcome: CompactOutcome): CompactOutcome {
    this.emit({ type: "notice", level: "warn", source: "compaction", message: `The conversation was not compacted: ${outcome.reason}.` });
    return outcome;
  }
}
