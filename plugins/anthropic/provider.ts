/**
 * An Anthropic provider: the Messages API with streamed text and `tool_use` blocks.
 * `@anthropic-ai/sdk` is imported on the first request only, so starting the CLI never loads it.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { ModelError, type ModelProvider, type ModelStopReason, type ModelStreamEvent, type ModelToolCall, type ModelUsage } from "../../core/index.js";
import { modelConnectionError, modelHttpError, modelRequestError } from "../../kit/index.js";
import { toMessagesParams } from "./messages.js";
import { resolveSettings, type ResolvedSettings } from "./settings.js";

export interface AnthropicProviderOptions {
  name: string;
  description: string;
  /** The current `providers.<name>` config entry (read on every request). */
  config(): unknown;
  /** Bare model names this provider serves (`--model gpt-4o`); none when unset. */
  knows?: RegExp;
  /** The aliases and context windows it declares (the first-party provider: models.ts). */
  models?: Pick<ModelProvider, "modelAliases" | "contextWindows">;
}

type Sdk = typeof import("@anthropic-ai/sdk");
type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;

export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const clients = new Map<string, Anthropic>();
  let sdk: Sdk | undefined;

  async function client(s: ResolvedSettings): Promise<Anthropic> {
    const key = JSON.stringify([s.baseURL, s.apiKey, s.authToken, s.headers, s.timeoutMs]);
    let c = clients.get(key);
    if (!c) {
      sdk ??= await import("@anthropic-ai/sdk");
      // Retries are the loop's job (one place, one policy): the SDK must not retry on its own.
      c = new sdk.default({
        baseURL: s.baseURL,
        ...(s.authToken ? { authToken: s.authToken, apiKey: null } : { apiKey: s.apiKey }),
        defaultHeaders: s.headers,
        maxRetries: 0,
        ...(s.timeoutMs ? { timeout: s.timeoutMs } : {}),
      });
      clients.set(key, c);
    }
    return c;
  }

  return {
    name: options.name,
    description: options.description,
    ...(options.knows ? { knowsModel: (model: string) => options.knows!.test(model) } : {}),
    ...options.models,

    async *stream(request, { signal }): AsyncGenerator<ModelStreamEvent> {
      const s = resolveSettings(options.name, options.config());
      const api = await client(s);
      let stream: AsyncIterable<StreamEvent>;
      try {
        stream = await api.messages.create(toMessagesParams(request, s), { signal });
      } catch (err) {
        if (signal.aborted) return;
        throw toModelError(err, s, request.model, false, sdk);
      }

      const blocks = new Map<number, { id: string; name: string; json: string }>();
      const usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
      let stop: string | null | undefined;
      let finished = false;
      try {
        for await (const ev of stream) {
          switch (ev.type) {
            case "message_start":
              addInput(usage, ev.message.usage);
              usage.outputTokens = ev.message.usage.output_tokens ?? 0;
              break;
            case "content_block_start":
              if (ev.content_block.type === "tool_use") blocks.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, json: "" });
              break;
            case "content_block_delta":
              if (ev.delta.type === "text_delta" && ev.delta.text) yield { type: "text_delta", text: ev.delta.text };
              else if (ev.delta.type === "input_json_delta") {
                const b = blocks.get(ev.index);
                if (b) b.json += ev.delta.partial_json;
              }
              break;
            case "content_block_stop": {
              const b = blocks.get(ev.index);
              if (b) yield { type: "tool_call", call: parseToolCall(b) };
              break;
            }
            case "message_delta":
              stop = ev.delta.stop_reason ?? stop;
              // Output tokens are cumulative here; input may be restated (server tools).
              if (ev.usage.output_tokens != null) usage.outputTokens = ev.usage.output_tokens;
              if (ev.usage.input_tokens != null) {
                usage.inputTokens = 0;
                addInput(usage, ev.usage);
              }
              break;
            case "message_stop":
              finished = true;
              break;
          }
        }
      } catch (err) {
        if (signal.aborted) return;
        throw toModelError(err, s, request.model, true, sdk);
      }
      if (signal.aborted) return;
      if (!finished) {
        throw new ModelError("E_MODEL_STREAM", `The response stream from ${s.name} (${s.baseURL}) ended before the model finished.`, {
          provider: s.name,
        });
      }
      yield { type: "usage", usage };
      yield { type: "stop", reason: stopReason(stop) };
    },

    async listModels({ signal }) {
      const s = resolveSettings(options.name, options.config());
      const api = await client(s);
      try {
        const ids: string[] = [];
        for await (const m of api.models.list({}, { signal })) ids.push(m.id);
        return ids;
      } catch (err) {
        throw toModelError(err, s, "", false, sdk);
      }
    },
  };
}

type InputUsage = { input_tokens?: number | null; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };

/** Anthropic counts cached input apart from `input_tokens`; the host's `inputTokens` includes it. */
function addInput(usage: ModelUsage, u: InputUsage): void {
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  usage.inputTokens += (u.input_tokens ?? 0) + read + write;
  if (read) usage.cacheReadTokens = read;
  if (write) usage.cacheWriteTokens = write;
}

function parseToolCall(b: { id: string; name: string; json: string }): ModelToolCall {
  if (b.json.trim() === "") return { id: b.id, name: b.name, input: {} };
  try {
    return { id: b.id, name: b.name, input: JSON.parse(b.json) as unknown };
  } catch (err) {
    // Cut at max_tokens, typically: the loop hands the model the parse error.
    return { id: b.id, name: b.name, input: b.json, inputError: (err as Error).message };
  }
}

function stopReason(stop: string | null | undefined): ModelStopReason {
  if (stop === "end_turn" || stop === "stop_sequence") return "end_turn";
  if (stop === "tool_use") return "tool_use";
  if (stop === "max_tokens") return "max_tokens";
  return "other";
}

/** An SDK or network failure as a `ModelError` a person can act on. */
function toModelError(err: unknown, s: ResolvedSettings, model: string, midStream: boolean, sdk: Sdk | undefined): ModelError {
  const e = err as { status?: number; headers?: Headers; error?: { error?: { type?: string; message?: string } }; message?: string };
  const detail = e.error?.error?.message ?? e.message ?? String(err);
  if (typeof e.status === "number") {
    // Anthropic's 400 for a request over the window: "prompt is too long: 212345 tokens > 200000 maximum".
    const contextLengthExceeded = e.status === 400 && /prompt is too long|exceed context limit/i.test(detail);
    return modelHttpError(s, { status: e.status, detail, headers: e.headers, model, contextLengthExceeded }, err);
  }
  const timedOut = !!sdk && err instanceof sdk.APIConnectionTimeoutError;
  const connectionFailed = !!sdk && err instanceof sdk.APIConnectionError;
  return (
    modelConnectionError(s, err, { timedOut, connectionFailed, midStream }) ?? streamErrorEvent(err, s, detail) ?? modelRequestError(s, err, { midStream, detail })
  );
}

/** An `event: error` inside the stream (no HTTP status): overloaded and api errors are worth retrying. */
function streamErrorEvent(err: unknown, s: ResolvedSettings, detail: string): ModelError | undefined {
  const e = err as { error?: { error?: { type?: string } } };
  if (!e.error?.error || typeof e.error.error !== "object") return undefined;
  const type = e.error.error.type ?? "";
  const retryable = /overloaded|api_error|timeout|rate_limit/.test(type);
  const code = type === "rate_limit_error" ? "E_MODEL_RATE_LIMIT" : retryable ? "E_MODEL_SERVER" : "E_MODEL";
  return new ModelError(code, `${s.name} (${s.baseURL}) reported an error mid-answer (${type || "error"}: ${detail})`, { provider: s.name, cause: err, retryable });
}
