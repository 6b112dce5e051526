/**
 * An OpenAI-compatible provider: Chat Completions with streamed text and tool calls.
 * The `openai` SDK is imported on the first request only, so starting the CLI never loads it.
 */
import type OpenAI from "openai";
import { ModelError, type ModelProvider, type ModelStopReason, type ModelStreamEvent, type ModelToolCall } from "../../core/index.js";
import { modelConnectionError, modelHttpError, modelRequestError } from "../../kit/index.js";
import { toChatParams } from "./messages.js";
import { resolveSettings, type ResolvedSettings } from "./settings.js";

export interface OpenAIProviderOptions {
  name: string;
  description: string;
  /** The current `providers.<name>` config entry (read on every request). */
  config(): unknown;
  /** Bare model names this provider serves (`--model gpt-4o`); none when unset. */
  knows?: RegExp;
  /** The aliases and context windows it declares (the first-party provider: models.ts). */
  models?: Pick<ModelProvider, "modelAliases" | "contextWindows">;
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
    ...(options.knows ? { knowsModel: (model: string) => options.knows!.test(model) } : {}),
    ...options.models,

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
  const detail = e.error?.message ?? e.message ?? String(err);
  if (typeof e.status === "number") {
    // OpenAI's 400 `context_length_exceeded` ("This model's maximum context length is … tokens").
    const contextLengthExceeded = e.error?.code === "context_length_exceeded" || /maximum context length|context_length_exceeded/i.test(detail);
    const notFoundAdvice = (s.name === "ollama" ? `, or download it with: ollama pull ${model}` : "") + ", and that the base URL is right";
    return modelHttpError(s, { status: e.status, detail, headers: e.headers, model, contextLengthExceeded, notFoundAdvice }, err);
  }
  const timedOut = !!sdk && err instanceof sdk.APIConnectionTimeoutError;
  const connectionFailed = !!sdk && err instanceof sdk.APIConnectionError;
  return (
    modelConnectionError(s, err, { timedOut, connectionFailed, midStream }) ?? streamErrorEvent(err, s, detail) ?? modelRequestError(s, err, { midStream, detail })
  );
}

/** An error sent inside the stream (no HTTP status). */
function streamErrorEvent(err: unknown, s: ResolvedSettings, detail: string): ModelError | undefined {
  const e = err as { error?: { type?: string } };
  if (!e.error || typeof e.error !== "object") return undefined;
  const type = e.error.type ?? "";
  const retryable = /server_error|overloaded|timeout|unavailable/i.test(type) || type === "";
  return new ModelError(retryable ? "E_MODEL_SERVER" : "E_MODEL", `${s.name} (${s.baseURL}) reported an error mid-answer: ${detail}`, { provider: s.name, cause: err, retryable });
}
