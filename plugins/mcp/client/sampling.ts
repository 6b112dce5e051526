/**
 * A server's `sampling/createMessage`: the server asks to use our model. It reaches the configured
 * provider only with the user's yes, per server: `"sampling": "ask"` (the default) puts the question
 * in the terminal through the host's grant prompt (the server named, the request shown; a yes holds
 * for the rest of the session), headless it is refused (set `"sampling": "allow"` for that server);
 * `"deny"` refuses always. Each request is audited (server, model, tokens, who decided) and its tokens
 * are added to the session's usage. Text content only (images and audio are described, not sent);
 * the server's model preferences are not followed: the session's model answers.
 */
import { type ModelMessage, type PluginContext } from "../../../core/index.js";
import { resolveModel } from "../../../core/embed.js";
import type { ServerConfig } from "../config.js";

interface SamplingParams {
  messages: { role: "user" | "assistant"; content: unknown }[];
  systemPrompt?: string;
  maxTokens?: number;
  temperature?: number;
}

export interface SamplingResult {
  role: "assistant";
  content: { type: "text"; text: string };
  model: string;
  stopReason: string;
  [key: string]: unknown;
}

/** A refusal the server receives as a JSON-RPC error (-1, as the spec's examples have it for a user's no). */
export class SamplingRefused extends Error {
  readonly code = -1;
}

const DEFAULT_MAX_TOKENS = 1024;

function contentText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts
    .map((p: { type?: string; text?: string; mimeType?: string }) => (p?.type === "text" ? String(p.text ?? "") : `[${p?.type ?? "unknown"} content${p?.mimeType ? ` ${p.mimeType}` : ""} not shown]`))
    .join("\n");
}

function preview(params: SamplingParams): string {
  const last = [...params.messages].reverse().find((m) => m.role === "user");
  const text = last ? contentText(last.content).replace(/\s+/g, " ").trim() : "";
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export class Sampler {
  /** Servers the user said yes to, for this session. */
  private readonly approved = new Set<string>();

  constructor(private readonly ctx: PluginContext) {}

  private async decide(server: ServerConfig, params: SamplingParams): Promise<string> {
    if (server.sampling === "deny") throw new SamplingRefused(`sampling is turned off for MCP server ${server.name} ("sampling": "deny")`);
    if (server.sampling === "allow") return "config";
    if (this.approved.has(server.name)) return "user (earlier in this session)";
    const ok = await this.ctx.requestGrant({
      rules: [`mcp__${server.name}__sampling`],
      reason: `MCP server ${server.name} asks to use the model (sampling, up to ${params.maxTokens ?? DEFAULT_MAX_TOKENS} tokens): "${preview(params)}"`,
    });
    if (!ok) {
      throw new SamplingRefused(
        `the user declined MCP server ${server.name}'s sampling request (with no terminal to ask, set "sampling": "allow" in the server's config to allow it)`,
      );
    }
    this.approved.add(server.name);
    return "user";
  }

  async createMessage(server: ServerConfig, params: SamplingParams, signal: AbortSignal): Promise<SamplingResult> {
    const by = await this.decide(server, params);
    const host = this.ctx.host;
    const { ref, provider, model } = resolveModel(host, host.session.model);
    const messages: ModelMessage[] = params.messages.map((m) => ({ role: m.role, content: contentText(m.content) }));
    let text = "";
    let stop = "endTurn";
    const usage = { inputTokens: 0, outputTokens: 0 };
    for await (const ev of provider.stream({ model, system: params.systemPrompt ?? "", messages, tools: [], maxTokens: params.maxTokens ?? DEFAULT_MAX_TOKENS, temperature: params.temperature }, { signal })) {
      if (ev.type === "text_delta") text += ev.text;
      else if (ev.type === "usage") (usage.inputTokens += ev.usage.inputTokens), (usage.outputTokens += ev.usage.outputTokens);
      else if (ev.type === "stop") stop = ev.reason === "max_tokens" ? "maxTokens" : "endTurn";
    }
    // The session's usage counts what servers spent of the model too (`/usage`, the run's totals).
    const total = host.session.usage as { inputTokens: number; outputTokens: number };
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    this.ctx.audit({ kind: "plugin", name: server.name, outcome: "sampling", detail: { model: ref, approvedBy: by, ...usage } });
    return { role: "assistant", content: { type: "text", text }, model: ref, stopReason: stop };
  }

  refused(server: ServerConfig, reason: string): void {
    this.ctx.audit({ kind: "plugin", name: server.name, outcome: "sampling_refused", detail: { reason } });
    this.ctx.log.info(`MCP server ${server.name}: ${reason}.`);
  }
}
