/**
 * How big a model's context window is, and how many tokens a request is. The window comes from config
 * `contextWindow`, else the model families the registered providers declare, else a default. A request's
 * size (in characters, the kernel's `ContextPoint.chars`) is estimated at about 4 per token, corrected by
 * what the provider reported for earlier requests (`usage.inputTokens` against the estimate then).
 */
import type { ModelProvider } from "../../core/index.js";

/** For a model nobody told us about (a local server's model: set `contextWindow` in the config). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Compaction starts when a request is estimated above this share of the window (config `compaction.threshold`). */
export const DEFAULT_COMPACT_THRESHOLD = 0.8;
/** Characters per token of the first estimate, before the provider's usage corrects it. */
export const CHARS_PER_TOKEN = 4;

/**
 * The context window for `provider:model` in tokens: config first, then the families the providers declare
 * (`ModelProvider.contextWindows`: the serving provider's, then every other's), then the default.
 */
export function contextWindowFor(ref: string, configured?: number, providers: readonly ModelProvider[] = []): { tokens: number; source: "config" | "table" | "default" } {
  if (configured) return { tokens: configured, source: "config" };
  const i = ref.indexOf(":");
  const provider = i > 0 ? ref.slice(0, i) : "";
  const model = (i > 0 ? ref.slice(i + 1) : ref).replace(/^.*\//, "").toLowerCase();
  const ordered = [...providers.filter((p) => p.name === provider), ...providers.filter((p) => p.name !== provider)];
  const hit = ordered.flatMap((p) => p.contextWindows ?? []).find((w) => w.model.test(model));
  return hit ? { tokens: hit.tokens, source: "table" } : { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/**
 * The estimate for one conversation: characters / 4, times a correction learnt from the provider's
 * reported input tokens (clamped to 0.25..4 so one odd report cannot blind it).
 */
export class TokenEstimator {
  private factor = 1;
  private lastChars = 0;

  tokens(chars: number): number {
    return Math.ceil((chars / CHARS_PER_TOKEN) * this.factor);
  }

  /** A request of `chars` characters is about to go. */
  sent(chars: number): void {
    this.lastChars = chars;
  }

  /** The provider said the last request was `inputTokens` long. */
  reported(inputTokens: number): void {
    if (!(inputTokens > 0) || !this.lastChars) return;
    const raw = inputTokens / (this.lastChars / CHARS_PER_TOKEN);
    this.factor = Math.min(4, Math.max(0.25, raw));
  }

  /** The provider refused the last request as longer than `tokens`: estimate at least that much for it. */
  atLeast(tokens: number): void {
    if (!this.lastChars) return;
    this.factor = Math.min(4, Math.max(this.factor, tokens / (this.lastChars / CHARS_PER_TOKEN)));
  }

  get correction(): number {
    return this.factor;
  }
}
