/**
 * The model error every provider throws, and how a failure is classified (status, retry-after, network
 * codes), shared by provider plugins so that every provider classifies alike.
 */
import { AgentError, errorMessage, type ModelErrorCode } from "../errors.js";
import type { z } from "zod";

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

/** `err` as a `ModelError` (anything else a provider threw: `E_MODEL`, not retryable). */
export function toModelError(err: unknown, provider: string): ModelError {
  if (err instanceof ModelError) return err;
  return new ModelError("E_MODEL", `${provider}: ${errorMessage(err)}`, { provider, cause: err });
}

/** The same failure with `note` after its message (why it was not retried, what a plugin adds). */
export function withNote(err: ModelError, note: string): ModelError {
  const { code, retryable, retryAfterMs, status, provider } = err;
  return new ModelError(code, `${err.message} (${note})`, { retryable, retryAfterMs, status, provider, cause: err });
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
