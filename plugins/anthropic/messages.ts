/** The host's neutral request, as Messages API parameters. */
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelMessage, ModelRequest } from "../../core/index.js";
import type { ResolvedSettings } from "./settings.js";

type Block = Anthropic.Messages.ContentBlockParam;
type MessageParam = { role: "user" | "assistant"; content: Block[] };
export type MessagesParams = Anthropic.Messages.MessageCreateParamsStreaming;

const EPHEMERAL = { type: "ephemeral" } as const;

export function toMessagesParams(request: ModelRequest, settings: ResolvedSettings): MessagesParams {
  const messages = toMessages(request.messages);
  if (settings.promptCaching) {
    // Cache breakpoints: the system prompt (which covers the tools before it) and the newest block,
    // so each turn re-reads the conversation so far from the cache.
    const last = messages.at(-1)?.content.at(-1);
    if (last && last.type !== "thinking" && last.type !== "redacted_thinking") Object.assign(last, { cache_control: EPHEMERAL });
  }
  const params: MessagesParams = {
    model: request.model,
    max_tokens: request.maxTokens ?? settings.maxTokens,
    messages,
    stream: true,
  };
  if (request.system) params.system = [{ type: "text", text: request.system, ...(settings.promptCaching ? { cache_control: EPHEMERAL } : {}) }];
  if (request.tools.length) {
    params.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as Anthropic.Messages.Tool.InputSchema,
    }));
  }
  return params;
}

/**
 * Tool results become `tool_result` blocks of a user message; consecutive messages of one role are
 * merged (the API wants every result of a turn in the one message after it); empty text is dropped
 * (the API refuses empty text blocks).
 */
export function toMessages(history: ModelMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  const push = (role: MessageParam["role"], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of history) {
    switch (m.role) {
      case "user":
        push("user", text(m.content));
        break;
      case "assistant":
        push("assistant", [
          ...text(m.content),
          ...(m.toolCalls ?? []).map(
            (c): Block => ({ type: "tool_use", id: c.id, name: c.name, input: isPlainObject(c.input) ? c.input : {} }),
          ),
        ]);
        break;
      case "tool":
        push("user", [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content || "(no output)", ...(m.isError ? { is_error: true } : {}) }]);
        break;
    }
  }
  return out;
}

function text(s: string): Block[] {
  return s.trim() ? [{ type: "text", text: s }] : [];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
