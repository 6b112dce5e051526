/**
 * The model provider interface. The core knows nothing about any vendor: providers are plugins
 * that turn a ModelRequest into a stream of ModelStreamEvents. Retries live in the loop (one place):
 * a provider reports a failure as a `ModelError` saying whether it is worth retrying, and never
 * retries on its own.
 */
import type { ModelErrorCode } from "../../kit/errors.js";
import type { JsonSchema } from "../types.js";

export type { ModelErrorCode };

/** A tool as offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface ModelToolCall {
  /** Provider-assigned id, echoed back in the tool result. */
  id: string;
  name: string;
  /** Parsed arguments; when the model sent invalid JSON, the raw string. */
  input: unknown;
  /** Set when the arguments were not valid JSON: the parser's complaint, for the model to act on. */
  inputError?: string;
}

export type ModelMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

export interface ModelRequest {
  /** The model id without the provider prefix, e.g. `gpt-5.4` for `openai:gpt-5.4`. */
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  maxTokens?: number;
  temperature?: number;
}

export interface ModelUsage {
  /** Every input token of the request, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (a subset of `inputTokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (a subset of `inputTokens`). */
  cacheWriteTokens?: number;
}

export type ModelStopReason = "end_turn" | "tool_use" | "max_tokens" | "other";

export type ModelStreamEvent =
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; call: ModelToolCall }
  | { type: "usage"; usage: ModelUsage }
  | { type: "stop"; reason: ModelStopReason };

export interface ModelProvider {
  /** The prefix in `provider:model`, e.g. `openai`. */
  name: string;
  description?: string;
  /**
   * Stream one model turn. Must honour `signal`. Throw a `ModelError` for failures (other errors are
   * treated as non-retryable). Do not retry: the loop does, with backoff, for retryable errors.
   */
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamEvent>;
  /** The models this provider can serve, for `/model` (optional). */
  listModels?(options: { signal: AbortSignal }): Promise<string[]>;
  /**
   * Whether a model name with no provider prefix is this provider's (`--model gpt-4o`): answered without
   * a request (a name pattern). When exactly one provider knows a bare name, it serves it (optional).
   */
  knowsModel?(model: string): boolean;
  /** Short names for its models (`sonnet` → `claude-sonnet-5-5`) wherever a model is chosen; config `modelAliases` wins. */
  modelAliases?: Readonly<Record<string, string>>;
  /** Context windows of its model families (first match on the model name, lower case, no `vendor/` prefix); config `contextWindow` wins. */
  contextWindows?: readonly { model: RegExp; tokens: number }[];
}

/** Split `provider:model`. The model part may itself contain colons (e.g. `ollama` tags). */
export function parseModelRef(ref: string): { provider: string; model: string } | undefined {
  const i = ref.indexOf(":");
  if (i <= 0 || i === ref.length - 1) return undefined;
  return { provider: ref.slice(0, i), model: ref.slice(i + 1) };
}

export { ModelError, modelErrorCodeForStatus, parseRetryAfter, networkErrorCode, parseProviderConfig } from "../../kit/provider/model-error.js";
