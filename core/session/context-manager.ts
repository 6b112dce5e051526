/**
 * The context of one host's conversation: the window of the model in use, the size estimate (learning
 * from the provider's reported usage), and compaction: automatic near the threshold, after a
 * context-length error, or asked for (`/compact`). Each compaction is an event and a transcript record.
 */
import { compactMessages, type CompactOutcome } from "./compaction.js";
import { contextWindowFor, DEFAULT_COMPACT_THRESHOLD, requestChars, TokenEstimator } from "./context-window.js";
import type { AgentEvent } from "../hooks/events.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentConfig } from "../config/config-schema.js";
import type { AgentSession } from "../host-types.js";
import { ModelError, type ModelProvider, type ModelRequest } from "../loop/model.js";
import type { SessionRecorder } from "./session-recorder.js";
import type { PermissionMode } from "../types.js";

/** A refusal of the request as too long, whichever provider said it. */
export function isContextLengthError(err: unknown): boolean {
  if (!(err instanceof ModelError)) return false;
  if (err.code === "E_MODEL_CONTEXT_LENGTH") return true;
  return err.code === "E_MODEL_BAD_REQUEST" && /prompt is too long|context.length|context window|maximum context|too many tokens/i.test(err.message);
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
    private readonly recorder: SessionRecorder,
    private readonly info: () => { sessionId: string; mode: PermissionMode; providers?: readonly ModelProvider[] },
    private readonly emit: (e: AgentEvent) => void,
  ) {}

  private get settings() {
    return this.config.compaction ?? {};
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
    if (this.settings.auto === false) return false;
    return tokens > this.window(ref) * (this.settings.threshold ?? DEFAULT_COMPACT_THRESHOLD);
  }

  /** Compact the session's conversation; the outcome is an event (when something changed) and a record. */
  async compact(session: AgentSession, c: CompactRequest): Promise<CompactOutcome> {
    const window = this.window(c.ref);
    // Refused as too long: the request was at least the window, whatever the estimate said.
    if (c.cause === "context_length") this.estimator.atLeast(window + 1);
    const messages = session.messages;
    const before = messages.length;
    const outcome = await compactMessages(messages, { trigger: c.trigger, instructions: c.instructions, force: c.cause === "context_length" }, {
      hooks: this.hooks,
      info: this.info,
      provider: c.provider,
      model: c.request.model,
      window,
      estimator: this.estimator,
      system: c.request.system,
      tools: c.request.tools,
      targetTokens: Math.floor(window * (this.settings.threshold ?? DEFAULT_COMPACT_THRESHOLD) * 0.9),
      keepRecentTokens: this.settings.keepRecentTokens,
      signal: c.signal,
    });
    if (!outcome.ok) {
      this.emit({ type: "notice", level: "warn", source: "compaction", message: `The conversation was not compacted: ${outcome.reason}.` });
      return outcome;
    }
    if (outcome.summary !== undefined) {
      this.recorder.compaction(messages, { trigger: c.trigger, summary: outcome.summary, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter });
    } else this.recorder.sync(messages, "tool results shortened to fit the context window");
    this.emit({
      type: "compaction",
      trigger: c.trigger,
      cause: c.cause,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      window,
      messagesBefore: before,
      messagesAfter: messages.length,
      summarized: outcome.summarized,
      shortened: outcome.shortened,
    });
    return outcome;
  }
}
