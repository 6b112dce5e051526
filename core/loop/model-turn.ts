/**
 * One model turn for the loop: the provider's stream read into text, tool calls, usage and a stop
 * reason, with an idle timeout; and the retries (bounded backoff, honouring `retryAfterMs`) of the
 * retryable failures. Retries happen here and only here.
 */
import { setTimeout as delay } from "node:timers/promises";
import { toModelError, withNote } from "../../kit/provider/model-error.js";
import type { AgentEvent } from "../hooks/events.js";
import { ModelError, type ModelProvider, type ModelRequest, type ModelStopReason, type ModelToolCall, type ModelUsage } from "./model.js";

export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
export const DEFAULT_RETRY = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };
/** A server asking us to wait longer than this is not waited for: the error is reported instead. */
const MAX_RETRY_AFTER_MS = 60_000;

export interface TurnOutput {
  text: string;
  toolCalls: ModelToolCall[];
  stop: ModelStopReason;
  usage?: ModelUsage;
}

/** Thrown inside a run when the user cancelled; never escapes the run. */
export class Aborted extends Error {
  /** Text the model had streamed when the user cancelled. */
  constructor(readonly partial = "") {
    super("aborted");
  }
}

export interface TurnOptions {
  provider: ModelProvider;
  signal: AbortSignal;
  emit(e: AgentEvent): void;
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  idleTimeoutMs?: number;
}

/** One model turn, retried with backoff on retryable failures (429, 5xx, network, broken or silent stream). */
export async function streamWithRetries(request: ModelRequest, o: TurnOptions): Promise<TurnOutput> {
  const retry = { ...DEFAULT_RETRY, ...o.retry };
  for (let attempt = 1; ; attempt++) {
    let err: ModelError;
    try {
      return await streamOnce(request, o);
    } catch (e) {
      if (e instanceof Aborted) throw e;
      err = toModelError(e, o.provider.name);
    }
    if (!err.retryable || attempt >= retry.maxAttempts) {
      throw attempt > 1 ? withNote(err, `gave up after ${attempt} attempts`) : err;
    }
    if (err.retryAfterMs !== undefined && err.retryAfterMs > MAX_RETRY_AFTER_MS) {
      throw withNote(err, `the server asked to wait ${Math.ceil(err.retryAfterMs / 1000)} s; not retrying`);
    }
    const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
    const delayMs = Math.round(err.retryAfterMs ?? backoff);
    o.emit({ type: "retry", attempt, maxAttempts: retry.maxAttempts, delayMs, code: err.code, message: err.message });
    if (!(await delay(delayMs, true, { signal: o.signal }).catch(() => false))) throw new Aborted();
  }
}

async function streamOnce(request: ModelRequest, o: TurnOptions): Promise<TurnOutput> {
  const idleMs = o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const idle = new AbortController();
  const signal = AbortSignal.any([o.signal, idle.signal]);
  // One timer, re-armed lazily: cheaper than resetting a timeout on every delta.
  let lastEvent = performance.now();
  let timer: NodeJS.Timeout;
  const arm = (ms: number) => {
    timer = setTimeout(() => {
      const silent = performance.now() - lastEvent;
      if (silent >= idleMs) idle.abort();
      else arm(idleMs - silent);
    }, ms);
  };
  arm(idleMs);

  const out: TurnOutput = { text: "", toolCalls: [], stop: "end_turn" };
  let stopped = false;
  try {
    for await (const ev of o.provider.stream(request, { signal })) {
      lastEvent = performance.now();
      if (signal.aborted) break;
      switch (ev.type) {
        case "text_delta":
          if (!ev.text) break;
          out.text += ev.text;
          o.emit({ type: "text_delta", text: ev.text });
          break;
        case "tool_call":
          out.toolCalls.push(ev.call);
          break;
        case "usage":
          out.usage = ev.usage;
          break;
        case "stop":
          out.stop = ev.reason;
          stopped = true;
          break;
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    clearTimeout(timer!);
  }
  // SDKs may end a stream quietly when its signal fires: check why it ended.
  if (o.signal.aborted) throw new Aborted(out.text);
  if (idle.signal.aborted) {
    throw new ModelError("E_MODEL_TIMEOUT", `${o.provider.name} sent nothing for ${Math.round(idleMs / 1000)} s; the request was dropped.`, {
      provider: o.provider.name,
    });
  }
  if (!stopped) out.stop = out.toolCalls.length ? "tool_use" : "end_turn";
  return out;
}
