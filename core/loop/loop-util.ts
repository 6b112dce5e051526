/** Helpers of the agent loop: model errors, debug output, backoff sleep. */
import { errorMessage } from "../../kit/errors.js";
import { ModelError } from "./model.js";

export function toModelError(err: unknown, provider: string): ModelError {
  if (err instanceof ModelError) return err;
  return new ModelError("E_MODEL", `${provider}: ${errorMessage(err)}`, { provider, cause: err });
}

/** The stack and every cause, for --debug. */
export function debugChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
  }
  return parts.join("\ncaused by: ");
}

export function withNote(err: ModelError, note: string): ModelError {
  const { code, retryable, retryAfterMs, status, provider } = err;
  return new ModelError(code, `${err.message} (${note})`, { retryable, retryAfterMs, status, provider, cause: err });
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
