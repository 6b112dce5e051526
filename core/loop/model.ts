/**
 * The model provider interface. The core knows nothing about any vendor: providers are plugins
 * that turn a ModelRequest into a stream of ModelStreamEvents. Retries live in the loop (one place):
 * a provider reports a failure as a `ModelError` saying whether it is worth retrying, and never
 * retries on its own.
 */
import { AgentError, type ModelErrorCode } from "../../kit/errors.js";
import type { z } from "zod";
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
}

/** Split `provider:model`. The model part may itself contain colons (e.g. `ollama` tags). */
export function parseModelRef(ref: string): { provider: string; model: string } | undefined {
  const i = ref.indexOf(":");
  if (i <= 0 || i === ref.length - 1) return undefined;
  return { provider: ref.slice(0, i), model: ref.slice(i + 1) };
}

/** A model request failure with a stable code and an actionable message. */
export class ModelError extends AgentError {
  declare readonly code: ModelErrorCode;
  /** Worth trying again (the loop retries these with backoff, a bounded number of times). */
  readonly retryable: boolean;
  /** Server-requested wait before retrying (`retry-after` / `retry-after-ms`). */
  readonly retryAfterMs?: number;
  readonly status?: number;
  readonly provider?: string;

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { retryable?: boolean; retryAfterMs?: number; status?: number; provider?: string; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause });
    this.name = "ModelError";
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.provider = options.provider;
  }
}

const RETRYABLE = new Set<ModelErrorCode>(["E_MODEL_RATE_LIMIT", "E_MODEL_SERVER", "E_MODEL_NETWORK", "E_MODEL_TIMEOUT", "E_MODEL_STREAM"]);

/** The error code for an HTTP status, shared by provider plugins so every provider classifies alike. */
export function modelErrorCodeForStatus(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return "E_MODEL_AUTH";
  if (status === 404) return "E_MODEL_NOT_FOUND";
  if (status === 408) return "E_MODEL_TIMEOUT";
  if (status === 429) return "E_MODEL_RATE_LIMIT";
  if (status >= 500) return "E_MODEL_SERVER";
  if (status >= 400) return "E_MODEL_BAD_REQUEST";
  return "E_MODEL";
}

/** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in ms; undefined when absent or unreadable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EPIPE"]);

/** The first Node network error code (`ECONNREFUSED`, ...) in an error's cause chain, if any. */
export function networkErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return e.code;
    for (const inner of Array.isArray(e.errors) ? e.errors : []) {
      const c = (inner as { code?: unknown })?.code;
      if (typeof c === "string" && NETWORK_CODES.has(c)) return c;
    }
  }
  return undefined;
}

/**
 * Check a provider's settings (config `providers.<name>`) against its schema. Invalid settings throw a
 * `ModelError` `E_MODEL_CONFIG` naming the key, e.g. `Invalid config providers.openai.baseURL: ...`.
 */
export function parseProviderConfig<T>(schema: z.ZodType<T>, name: string, raw: unknown): T {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = ["providers", name, ...issue.path.map(String)].join(".");
  throw new ModelError("E_MODEL_CONFIG", `Invalid config ${where}: ${issue.message}.`, { provider: name });
}
