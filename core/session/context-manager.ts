/**
 * The context of one host's conversation: the window of the model in use, the size estimate (learning
 * from the provider's reported usage), and when to compact: automatic near the threshold, after a
 * context-length error, or asked for (`/compact`). `preCompact` may block it; the compacting itself is
 * the `compact` hook's (the `compaction` plugin). Each compaction is an event and a transcript record.
 */
import { replaceAll } from "../../kit/array-bulk.js";
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import type { CompactOutcome } from "./compact-outcome.js";
import { CHARS_PER_TOKEN, contextWindowFor, DEFAULT_COMPACT_THRESHOLD, requestChars, TokenEstimator } from "./context-window.js";
import { describeValue } from "../hooks/hook-adapters.js";
import type { AgentEvent } from "../hooks/events.js";
import type { CompactInfo, CompactionRequest, CompactionResult, Collector } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentConfig } from "../config/config-schema.js";
import type { AgentSession } from "../host-types.js";
import { ModelError, type ModelMessage, type ModelProvider, type ModelRequest } from "../loop/model.js";
import type { Transcript } from "./transcript.js";
import type { DeepReadonly, PermissionMode } from "../types.js";

/** A refusal of the request as too long, whichever provider said it. */
export function isContextLengthError(err: unknown): boolean {
  if (!(err instanceof ModelError)) return false;
  if (err.code === "E_MODEL_CONTEXT_LENGTH") return true;
  return err.code === "E_MODEL_BAD_REQUEST" && /prompt is too long|context.length|context window|maximum context|too many tokens/i.test(err.message);
}

/** `preCompact`: a block wins; instructions add up; a handler that fails is skipped (the hook's policy). */
class PreCompactCollector implements Collector<CompactInfo> {
  blocked: { plugin: string; reason: string } | undefined;
  readonly instructions: string[] = [];
  constructor(private readonly info: CompactInfo) {}
  view(): CompactInfo {
    return this.info;
  }
  take(plugin: string, out: unknown): string | undefined {
    const o = (typeof out === "object" ? out : {}) as Record<string, unknown>;
    if (typeof o.block === "string") this.blocked ??= { plugin, reason: o.block };
    else if (typeof o.instructions === "string") {
      if (o.instructions.trim()) this.instructions.push(o.instructions.trim());
    } else return `returned ${describeValue(out)} instead of { block } or { instructions }; ignored`;
    return undefined;
  }
}

/** `compact`: the first answer decides. */
class ResultCollector implements Collector<CompactionRequest> {
  result: CompactionResult | undefined;
  constructor(private readonly request: CompactionRequest) {}
  view(): CompactionRequest {
    return this.request;
  }
  take(_plugin: string, out: unknown): string | undefined {
    const r = out as Partial<CompactionResult> | null;
    const ok = typeof r === "object" && r !== null && typeof r.ok === "boolean" && typeof r.shortened === "number" && typeof r.summarized === "number" && (r.messages === undefined || Array.isArray(r.messages));
    if (!ok) return `returned ${describeValue(out)} instead of { ok, shortened, summarized, messages? }; ignored`;
    this.result ??= r as CompactionResult;
    return undefined;
  }
}

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

export interface CompactRequest {
  trigger: "manual" | "auto";
  cause: "manual" | "threshold" | "context_length";
  instructions?: string;
  provider: ModelProvider;
  ref: string;
  /** The request as it would go (system and tools count towards the size). */
  request: Pick<ModelRequest, "model" | "system" | "tools">;
  signal?: AbortSignal;
}

export class ContextManager {
  readonly estimator = new TokenEstimator();

  constructor(
    private readonly config: Readonly<AgentConfig>,
    private readonly hooks: RawHooks,
    private readonly recorder: Transcript,
    private readonly info: () => { sessionId: string; mode: PermissionMode; providers?: readonly ModelProvider[] },
    private readonly emit: (e: AgentEvent) => void,
  ) {}

  private get settings() {
    return this.config.compaction ?? {};
  }

  /** Whether a plugin compacts (taps `compact`): without one the host never compacts. */
  get available(): boolean {
    return this.hooks.compact.isUsed();
  }

  window(ref: string): number {
    return contextWindowFor(ref, this.config.contextWindow, this.info().providers).tokens;
  }

  /** The estimated size of a request in tokens; noted as the one sent, for the correction. */
  measure(request: ModelRequest): number {
    const chars = requestChars(request);
    this.estimator.sent(chars);
    return this.estimator.tokens(chars);
  }

  /** Whether a request of `tokens` should be compacted first (auto compaction on, above the threshold). */
  overThreshold(ref: string, tokens: number): boolean {
    if (this.settings.auto === false || !this.available) return false;
    return tokens > this.window(ref) * (this.settings.threshold ?? DEFAULT_COMPACT_THRESHOLD);
  }

  /** Compact the session's conversation (the `compact` hook, after `preCompact`); the outcome is an event (when something changed) and a record. */
  async compact(session: AgentSession, c: CompactRequest): Promise<CompactOutcome> {
    const window = this.window(c.ref);
    // Refused as too long: the request was at least the window, whatever the estimate said.
    if (c.cause === "context_length") this.estimator.atLeast(window + 1);
    const messages = session.messages;
    const before = messages.length;
    const size = (m: readonly DeepReadonly<ModelMessage>[]) => this.estimator.tokens(requestChars({ system: c.request.system, messages: m as ModelMessage[], tools: c.request.tools }));
    const tokensBefore = size(messages);
    const outcome = (o: Partial<CompactOutcome>): CompactOutcome => ({ ok: false, tokensBefore, tokensAfter: size(messages), summarized: 0, shortened: 0, ...o });
    const pre = new PreCompactCollector(freezeCopy({ ...this.info(), trigger: c.trigger, instructions: c.instructions ?? "" }));
    if (this.hooks.preCompact.isUsed()) await this.hooks.preCompact.promise(pre);
    if (pre.blocked) return this.failed(outcome({ reason: `blocked by plugin ${pre.blocked.plugin}: ${pre.blocked.reason}`, blockedBy: pre.blocked.plugin }));
    const ask = new ResultCollector({
      ...freezeCopy({
        sessionId: this.info().sessionId,
        trigger: c.trigger,
        force: c.cause === "context_length",
        instructions: [c.instructions?.trim(), ...pre.instructions].filter((t): t is string => !!t),
        messages,
        model: c.request.model,
        window,
        targetTokens: Math.floor(window * (this.settings.threshold ?? DEFAULT_COMPACT_THRESHOLD) * 0.9),
        ...(this.settings.keepRecentTokens !== undefined ? { keepRecentTokens: this.settings.keepRecentTokens } : {}),
        charsPerToken: CHARS_PER_TOKEN / this.estimator.correction,
      }),
      tokens: size,
      summarize: (request: ModelRequest) => collectText(c.provider, request, c.signal),
    });
    await this.hooks.compact.promise(ask);
    const r = ask.result;
    if (!r) return this.failed(outcome({ reason: "no plugin compacted it" }));
    if (r.messages) replaceAll(messages, plainCopy(r.messages));
    const done = outcome({ ok: r.ok, shortened: r.shortened, summarized: r.summarized, ...(r.reason !== undefined ? { reason: r.reason } : {}), ...(r.summary !== undefined ? { summary: r.summary } : {}) });
    if (!done.ok) return this.failed(done);
    if (done.summary !== undefined) {
      this.recorder.compaction(messages, { trigger: c.trigger, summary: done.summary, tokensBefore: done.tokensBefore, tokensAfter: done.tokensAfter });
    } else this.recorder.sync(messages, "tool results shortened to fit the context window");
    this.emit({
      type: "compaction",
      trigger: c.trigger,
      cause: c.cause,
      tokensBefore: done.tokensBefore,
      tokensAfter: done.tokensAfter,
      window,
      messagesBefore: before,
      messagesAfter: messages.length,
      summarized: done.summarized,
      shortened: done.shortened,
    });
    return done;
  }

  private failed(outcome: CompactOutcome): CompactOutcome {
    this.emit({ type: "notice", level: "warn", source: "compaction", message: `The conversation was not compacted: ${outcome.reason}.` });
    return outcome;
  }
}
