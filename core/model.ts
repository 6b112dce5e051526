/**
 * The model provider interface. The core knows nothing about any vendor: providers are plugins
 * that turn a ModelRequest into a stream of ModelStreamEvents.
 */
import type { JsonSchema } from "./types.js";

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
}

export type ModelMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

export interface ModelRequest {
  /** The model id without the provider prefix, e.g. `gpt-4.1` for `openai:gpt-4.1`. */
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  maxTokens?: number;
  temperature?: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
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
   * Stream one model turn. Must honour `signal`. Throw a `ModelError` (or any Error) for failures;
   * retries of transient errors are the provider's job.
   */
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamEvent>;
}

/** Split `provider:model`. The model part may itself contain colons (e.g. `ollama` tags). */
export function parseModelRef(ref: string): { provider: string; model: string } | undefined {
  const i = ref.indexOf(":");
  if (i <= 0 || i === ref.length - 1) return undefined;
  return { provider: ref.slice(0, i), model: ref.slice(i + 1) };
}
