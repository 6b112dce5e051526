/** The host's neutral request, as Chat Completions parameters. */
import type OpenAI from "openai";
import type { ModelMessage, ModelRequest } from "../../core/index.js";
import type { ResolvedSettings } from "./settings.js";

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;

export function toChatParams(request: ModelRequest, settings: ResolvedSettings): ChatParams {
  const messages: ChatMessage[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const m of request.messages) messages.push(toChatMessage(m));
  const params: ChatParams = { model: request.model, messages, stream: true };
  if (settings.streamUsage) params.stream_options = { include_usage: true };
  // Some servers reject an empty tool list.
  if (request.tools.length) {
    params.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  }
  const maxTokens = request.maxTokens ?? settings.maxTokens;
  // OpenAI's newer models refuse `max_tokens`; most compatible servers only know it.
  if (maxTokens) {
    if (settings.official) params.max_completion_tokens = maxTokens;
    else params.max_tokens = maxTokens;
  }
  const temperature = request.temperature ?? settings.temperature;
  if (temperature !== undefined) params.temperature = temperature;
  return params;
}

function toChatMessage(m: ModelMessage): ChatMessage {
  switch (m.role) {
    case "user":
      return { role: "user", content: m.content };
    case "assistant":
      if (!m.toolCalls?.length) return { role: "assistant", content: m.content };
      return {
        role: "assistant",
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          // Invalid JSON the model sent goes back verbatim, so it can see its own mistake.
          function: { name: c.name, arguments: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {}) },
        })),
      };
    case "tool":
      // Chat Completions has no error flag on tool results: say it in the text.
      return { role: "tool", tool_call_id: m.toolCallId, content: m.isError ? `Error: ${m.content}` : m.content };
  }
}
