/**
 * The provider kit: a failed model request as a `ModelError` a person can act on, naming the endpoint
 * (`openai (https://api.openai.com/v1)`), the HTTP status and where the key comes from. Shared by the
 * built-in providers so that every provider words and classifies a failure alike; a third-party
 * provider maps its SDK's error onto these three calls and keeps only its own vendor's cases.
 */
import { ModelError, modelErrorCodeForStatus, networkErrorCode, parseRetryAfter } from "./model-error.js";

/** Where a request went: the provider's name, its base URL and where its key comes from. */
export interface ModelEndpoint {
  /** The provider's name, e.g. `openai`. */
  name: string;
  baseURL: string;
  /** Where the key is set, for "Check …" after a 401/403, e.g. `OPENAI_API_KEY (or providers.openai.apiKey in your agent config)`. */
  keyHint: string;
}

/** The server answered with an HTTP error status. */
export interface ModelHttpFailure {
  status: number;
  /** The server's own words (the error body's message), else the error's message. */
  detail: string;
  /** The response headers, for `retry-after` / `retry-after-ms`. */
  headers?: { get(name: string): string | null };
  /** The model asked for, named in a 404's message. */
  model: string;
  /** The vendor's own sign (code or wording) that the request was over the model's context window. */
  contextLengthExceeded?: boolean;
  /** Appended to a 404's "Check the model name in --model <provider>:<model>", e.g. `, and that the base URL is right`. */
  notFoundAdvice?: string;
}

const where = (endpoint: ModelEndpoint): string => `${endpoint.name} (${endpoint.baseURL})`;

/** An HTTP error status as a `ModelError`: auth, unknown model, rate limit, server, timeout, context length, refused. */
export function modelHttpError(endpoint: ModelEndpoint, failure: ModelHttpFailure, cause: unknown): ModelError {
  const { status, detail } = failure;
  const at = where(endpoint);
  const opts = { provider: endpoint.name, cause, status };
  const code = modelErrorCodeForStatus(status);
  const retryAfterMs = parseRetryAfter(failure.headers);
  switch (code) {
    case "E_MODEL_AUTH":
      return new ModelError(code, `${at} refused the API key (${status}: ${detail}). Check ${endpoint.keyHint}.`, opts);
    case "E_MODEL_NOT_FOUND":
      return new ModelError(
        code,
        `${at} has no model "${failure.model}" (404: ${detail}). Check the model name in --model ${endpoint.name}:<model>${failure.notFoundAdvice ?? ""}.`,
        opts,
      );
    case "E_MODEL_RATE_LIMIT":
      return new ModelError(code, `${at} is rate limiting requests (429: ${detail})`, { ...opts, retryAfterMs });
    case "E_MODEL_SERVER":
      return new ModelError(code, `${at} had a server error (${status}: ${detail})`, { ...opts, retryAfterMs });
    case "E_MODEL_TIMEOUT":
      return new ModelError(code, `${at} timed out (${status}: ${detail})`, { ...opts, retryAfterMs });
    default:
      if (failure.contextLengthExceeded) {
        return new ModelError("E_MODEL_CONTEXT_LENGTH", `${at} refused the request as too long for the model's context window (${status}: ${detail})`, opts);
      }
      return new ModelError(code, `${at} refused the request (${status}: ${detail})`, opts);
  }
}

/** What the provider's SDK said of a failure with no HTTP status. */
export interface ModelConnectionFailure {
  /** The SDK's own connection-timeout error. */
  timedOut: boolean;
  /** The SDK's own connection error (it could not reach the server). */
  connectionFailed: boolean;
  /** The answer had started streaming: a network code then means a broken stream, not a refused connection. */
  midStream: boolean;
}

/**
 * A timeout or a failed connection as a `ModelError` (`E_MODEL_TIMEOUT`, `E_MODEL_NETWORK` with the OS
 * code and a hint: is a local server running, is the host name right); undefined for any other failure.
 */
export function modelConnectionError(endpoint: ModelEndpoint, err: unknown, failure: ModelConnectionFailure): ModelError | undefined {
  const at = where(endpoint);
  const opts = { provider: endpoint.name, cause: err };
  if (failure.timedOut) return new ModelError("E_MODEL_TIMEOUT", `${at} did not answer in time.`, opts);
  if (!failure.connectionFailed && (failure.midStream || !networkErrorCode(err))) return undefined;
  const net = networkErrorCode(err);
  const local = /\/\/(localhost|127\.|\[::1\]|0\.0\.0\.0)/.test(endpoint.baseURL);
  const hint = local ? " Is the server running?" : net === "ENOTFOUND" || net === "EAI_AGAIN" ? " Check the host name and your network." : " Check your network.";
  return new ModelError("E_MODEL_NETWORK", `Could not connect to ${at}${net ? ` (${net})` : ""}.${hint}`, opts);
}

/**
 * The last resort, for a failure neither HTTP nor connection nor the vendor's own: a stream that broke
 * mid-answer (`E_MODEL_STREAM`, retried, with the cause chain), else a failed request (`E_MODEL`).
 */
export function modelRequestError(endpoint: ModelEndpoint, err: unknown, options: { midStream: boolean; detail: string }): ModelError {
  const at = where(endpoint);
  const opts = { provider: endpoint.name, cause: err };
  if (options.midStream) return new ModelError("E_MODEL_STREAM", `The connection to ${at} broke mid-answer (${describeCause(err)}).`, opts);
  return new ModelError("E_MODEL", `${at} request failed: ${options.detail}`, opts);
}

/** The messages of an error and its first causes, e.g. `terminated: other side closed`. */
function describeCause(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 3; e = e.cause as typeof e, i++) {
    if (e.message) parts.push(e.message);
  }
  return parts.join(": ") || String(err);
}
