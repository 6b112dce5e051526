/**
 * What the `openai` provider declares of its models: aliases (following the names `openai`'s `ChatModel`
 * lists as current; tests/core/model-names.test.ts checks them against it) and the context windows of its
 * model families, first match wins.
 */
import type { ModelProvider } from "../../core/index.js";

export const OPENAI_MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  gpt: "gpt-5.4",
  "gpt-mini": "gpt-5.1-mini",
});

export const OPENAI_CONTEXT_WINDOWS: NonNullable<ModelProvider["contextWindows"]> = [
  { model: /^gpt-5/, tokens: 400_000 },
  { model: /^gpt-4\.1/, tokens: 1_047_576 },
  { model: /^(gpt-4o|chatgpt-4o)/, tokens: 128_000 },
  { model: /^gpt-4-turbo/, tokens: 128_000 },
  { model: /^gpt-4(-|$)/, tokens: 8_192 },
  { model: /^gpt-3\.5/, tokens: 16_385 },
  { model: /^o[134](-|$)/, tokens: 200_000 },
];
