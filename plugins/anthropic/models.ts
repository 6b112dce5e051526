/**
 * What the `anthropic` provider declares of its models: aliases (following the names `@anthropic-ai/sdk`'s
 * `Model` lists as current; tests/core/model-names.test.ts checks them against it and its deprecations) and
 * the context windows of its model families.
 */
import type { ModelProvider } from "../../core/index.js";

export const ANTHROPIC_MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
});

export const ANTHROPIC_CONTEXT_WINDOWS: NonNullable<ModelProvider["contextWindows"]> = [{ model: /^claude-/, tokens: 200_000 }];
