/**
 * Context management: the window of the model in use, the size estimate (learning from the provider's reported
 * usage), and when to compact: near the threshold before a request (`fitContext`), after a context-length error
 * (`modelError`: compact, then the request goes again once), or asked for (`compactAsked`, `/compact`). The
 * kernel compacts when asked (`point.compact`: `preCompact`, the `compact` hook, the record and the event).
 */
import type { PluginHost } from "../../core/index.js";
import type { CompactAskedPoint, CompactionAsk, ContextPoint, ModelErrorDecision, ModelErrorInfo, ModelTurnPoint } from "../../core/embed.js";
import { CHARS_PER_TOKEN, contextWindowFor, DEFAULT_COMPACT_THRESHOLD, TokenEstimator } from "./context-window.js";

/** A refusal of the request as too long, whichever provider said it. */
export function isContextLengthError(err: { code: string; message: string }): boolean {
  if (err.code === "E_MODEL_CONTEXT_LENGTH") return true;
  return err.code === "E_MODEL_BAD_REQUEST" && /prompt is too long|context.length|context window|maximum context|too many tokens/i.test(err.message);
}

export class ContextManager {
  readonly estimator = new TokenEstimator();
  /** A compaction that did not work (blocked, nothing to summarise, the summary failed) is not tried again in the run. */
  private failedThisRun = false;

  constructor(private readonly host: PluginHost) {}

  private get settings() {
    return this.host.config.compaction ?? {};
  }

  private get threshold(): number {
    return this.settings.threshold ?? DEFAULT_COMPACT_THRESHOLD;
  }

  window(ref: string): number {
    return contextWindowFor(ref, this.host.config.contextWindow, this.host.providers.list()).tokens;
  }

  /** `fitContext`: measure the request (noted as the one sent, for the correction); compact first when auto compaction is on and it is above the threshold. */
  async fit(point: ModelTurnPoint): Promise<void> {
    if (point.turn === 1 && !point.compacted) this.failedThisRun = false;
    this.estimator.sent(point.chars);
    if (point.compacted || this.failedThisRun || this.settings.auto === false) return;
    if (this.estimator.tokens(point.chars) <= this.window(point.model) * this.threshold) return;
    const done = await point.compact(this.ask(point, "auto", "threshold"));
    if (!done.ok) this.failedThisRun = true;
  }

  /** `modelError`: refused as too long, compact and send it again once; what did not work is said in the error. */
  async failed(failure: ModelErrorInfo): Promise<ModelErrorDecision | undefined> {
    if (!isContextLengthError(failure.error)) return undefined;
    const window = this.window(failure.model);
    const hint = `the conversation is assumed to fit in ${window} tokens; if the model's window is smaller, set contextWindow in the config`;
    if (failure.retried) return { note: `still too long after compacting once; ${hint}` };
    // Refused as too long: the request was at least the window, whatever the estimate said.
    this.estimator.atLeast(window + 1);
    const done = await failure.compact(this.ask(failure, "auto", "context_length"));
    return done.ok ? { retry: true } : { note: `compacting the conversation did not work; ${hint}` };
  }

  /** `compactAsked`: `session.compact()`, with the user's focus. */
  async asked(point: CompactAskedPoint): Promise<void> {
    await point.compact(this.ask(point, "manual", "manual", point.instructions));
  }

  private ask(point: ContextPoint, trigger: CompactionAsk["trigger"], cause: CompactionAsk["cause"], instructions?: string): CompactionAsk {
    const window = this.window(point.model);
    const { keepRecentTokens } = this.settings;
    return {
      trigger,
      cause,
      ...(instructions !== undefined ? { instructions } : {}),
      window,
      targetTokens: Math.floor(window * this.threshold * 0.9),
      ...(keepRecentTokens !== undefined ? { keepRecentTokens } : {}),
      charsPerToken: CHARS_PER_TOKEN / this.estimator.correction,
      tokens: (chars) => this.estimator.tokens(chars),
    };
  }
}
