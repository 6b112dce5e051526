/**
 * An OpenAI-compatible provider: Chat Completions with streamed text and tool calls.
 * The `openai` SDK is imported on the first request only, so starting the CLI never loads it.
 */
import type OpenAI from "openai";
import {
  ModelError,
  modelErrorCodeForStatus,
  networkErrorCode,
  parseRetryAfter,
  type ModelProvider,
  type ModelStopReason,
  type ModelStreamEvent,
  type ModelToolCall,
} from "../../core/index.js";
import { toChatParams } from "./messages.js";
import { resolveSettings, type ResolvedSettings } from "./settings.js";

export interface OpenAIProviderOptions {
  name: string;
  description: string;
  /** The current `providers.<name>` config entry (read on every request). */
  config(): unknown;
}

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

type Sdk = typeof import("openai");

export function createOpenAIProvider(options: OpenAIProviderOptions): ModelProvider {
  const clients = new Map<string, OpenAI>();
  let sdk: Sdk | undefined;

  async function client(s: ResolvedSettings): Promise<OpenAI> {
    const key = JSON.stringify([s.baseURL, s.apiKey, s.headers, s.organization, s.project, s.timeoutMs]);
    let c = clients.get(key);
    if (!c) {
      sdk ??= await import("openai");
      const OpenAIClient = sdk.default;
      // Retries are the loop's job (one place, one policy): the SDK must not retry on its own.
      c = new OpenAIClient({
        apiKey: s.apiKey,
        baseURL: s.baseURL,
        organization: s.organization ?? null,
        project: s.project ?? null,
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

    async *stream(request, { signal }): AsyncGenerator<ModelStreamEvent> {
      const s = resolveSettings(options.name, options.config());
      const api = await client(s);
      let stream: AsyncIterable<Chunk>;
      try {
        stream = await api.chat.completions.create(toChatParams(request, s), { signal });
      } catch (err) {
        if (signal.aborted) return;
        throw toModelError(err, s, request.model, false, sdk);
      }

      const calls = new ToolCallAssembler();
      let finish: string | null = null;
      let usage: Chunk["usage"] | undefined;
      try {
        for await (const chunk of stream) {
          if (chunk.usage) usage = chunk.usage;
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const text = choice.delta?.content;
          if (text) yield { type: "text_delta", text };
          for (const tc of choice.delta?.tool_calls ?? []) calls.add(tc);
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      } catch (err) {
        if (signal.aborted) return;
        throw toModelError(err, s, request.model, true, sdk);
      }
      if (signal.aborted) return;
      if (!finish) {
        throw new ModelError("E_MODEL_STREAM", `The response stream from ${s.name} (${s.baseURL}) ended before the model finished.`, {
          provider: s.name,
        });
      }
      for (const call of calls.finish()) yield { type: "tool_call", call };
      if (usage) {
        const cached = usage.prompt_tokens_details?.cached_tokens;
        yield {
          type: "usage",
          usage: { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0, ...(cached ? { cacheReadTokens: cached } : {}) },
        };
      }
      yield { type: "stop", reason: stopReason(finish) };
    },

    async listModels({ signal }) {
      const s = resolveSettings(options.name, options.config());
      const api = await client(s);
      try {
        const ids: string[] = [];
        for await (const m of api.models.list({ signal })) ids.push(m.id);
        return ids.sort();
      } catch (err) {
        throw toModelError(err, s, "", false, sdk);
      }
    },
  };
}

function stopReason(finish: string): ModelStopReason {
  if (finish === "stop") return "end_turn";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  if (finish === "length") return "max_tokens";
  return "other";
}

type ToolCallDelta = NonNullable<Chunk["choices"][number]["delta"]["tool_calls"]>[number];

/**
 * Tool calls arrive as fragments keyed by `index`. Some servers reuse index 0 for every call of a
 * turn (each with its own id): a new id at a used index starts a new call.
 */
class ToolCallAssembler {
  private readonly calls: { id: string; name: string; args: string }[] = [];
  private readonly byIndex = new Map<number, number>();

  add(d: ToolCallDelta): void {
    let pos = this.byIndex.get(d.index);
    const current = pos === undefined ? undefined : this.calls[pos];
    if (!current || (d.id && current.id && d.id !== current.id)) {
      pos = this.calls.push({ id: d.id ?? "", name: "", args: "" }) - 1;
      this.byIndex.set(d.index, pos);
    }
    const call = this.calls[pos!];
    if (d.id && !call.id) call.id = d.id;
    if (d.function?.name) call.name += d.function.name;
    if (d.function?.arguments) call.args += d.function.arguments;
  }

  finish(): ModelToolCall[] {
    return this.calls.map((c, i) => {
      const id = c.id || `call_${i}_${Math.random().toString(36).slice(2, 10)}`;
      if (c.args.trim() === "") return { id, name: c.name, input: {} };
      try {
        return { id, name: c.name, input: JSON.parse(c.args) as unknown };
      } catch (err) {
        return { id, name: c.name, input: c.args, inputError: (err as Error).message };
      }
    });
  }
}

/** An SDK or network failure as a `ModelError` a person can act on. */
function toModelError(err: unknown, s: ResolvedSettings, model: string, midStream: boolean, sdk: Sdk | undefined): ModelError {
  const e = err as { status?: number; headers?: Headers; error?: { message?: string; type?: string; code?: string }; message?: string; name?: string };
  const where = `${s.name} (${s.baseURL})`;
  const detail = e.error?.message ?? e.message ?? String(err);
  const opts = { provider: s.name, cause: err, status: e.status };

  if (typeof e.status === "number") {
    const code = modelErrorCodeForStatus(e.status);
    const retryAfterMs = parseRetryAfter(e.headers);
    switch (code) {
      case "E_MODEL_AUTH":
        return new ModelError(code, `${where} refused the API key (${e.status}: ${detail}). Check ${s.keyHint}.`, opts);
      case "E_MODEL_NOT_FOUND":
        return new ModelError(
          code,
          `${where} has no model "${model}" (404: ${detail}). Check the model name in --model ${s.name}:<model>` +
            (s.name === "ollama" ? `, or download it with: ollama pull ${model}` : "") +
            ", and that the base URL is right.",
          opts,
        );
      case "E_MODEL_RATE_LIMIT":
        return new ModelError(code, `${where} is rate limiting requests (429: ${detail})`, { ...opts, retryAfterMs });
      case "E_MODEL_SERVER":
        return new ModelError(code, `${where} had a server error (${e.status}: ${detail})`, { ...opts, retryAfterMs });
      case "E_MODEL_TIMEOUT":
        return new ModelError(code, `${where} timed out (${e.status}: ${detail})`, { ...opts, retryAfterMs });
      default:
        // OpenAI's 400 `context_length_exceeded` ("This model's maximum context length is … tokens").
        if (e.error?.code === "context_length_exceeded" || /maximum context length|context_length_exceeded/i.test(detail)) {
          return new ModelError("E_MODEL_CONTEXT_LENGTH", `${where} refused the request as too long for the model's context window (${e.status}: ${detail})`, opts);
        }
        return new ModelError(code, `${where} refused the request (${e.status}: ${detail})`, opts);
    }
  }
  if (sdk && err instanceof sdk.APIConnectionTimeoutError) {
    return new ModelError("E_MODEL_TIMEOUT", `${where} did not answer in time.`, opts);
  }
  if ((sdk && err instanceof sdk.APIConnectionError) || (!midStream && networkErrorCode(err))) {
    const net = networkErrorCode(err);
    const local = /\/\/(localhost|127\.|\[::1\]|0\.0\.0\.0)/.test(s.baseURL);
    const hint = local ? " Is the server running?" : net === "ENOTFOUND" || net === "EAI_AGAIN" ? " Check the host name and your network." : " Check your network.";
    return new ModelError("E_MODEL_NETWORK", `Could not connect to ${where}${net ? ` (${net})` : ""}.${hint}`, opts);
  }
  if (e.error && typeof e.error === "object") {
    // An error sent inside the stream (no HTTP status).
    const type = e.error.type ?? "";
    const retryable = /server_error|overloaded|timeout|unavailable/i.test(type) || type === "";
    return new ModelError(retryable ? "E_MODEL_SERVER" : "E_MODEL", `${where} reported an error mid-answer: ${detail}`, { ...opts, retryable });
  }
  if (midStream) {
    return new ModelError("E_MODEL_STREAM", `The connection to ${where} broke mid-answer (${describeCause(err)}).`, opts);
  }
  return new ModelError("E_MODEL", `${where} request failed: ${detail}`, opts);
}

function describeCause(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 3; e = e.cause as typeof e, i++) {
    if (e.message) parts.push(e.message);
  }
  return parts.join(": ") || String(err);
}
