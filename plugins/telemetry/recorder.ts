/**
 * The host's events as OpenTelemetry data, following the GenAI semantic conventions: a run is an
 * `invoke_agent` span, each model request a `chat <model>` child with token usage, each gated call an
 * `execute_tool <name>` child (tool-calls.ts; a root span for calls made outside a run: `agent mcp serve`,
 * `agent call`), each subagent an `invoke_agent <name>` span under the call that started it, with its own
 * chat and tool spans beneath. Metrics: token usage, model request durations (and the calls'). Session
 * permission grants are log records.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { type AgentEvent } from "../../core/index.js";
import { redactString } from "../../kit/index.js";
import { noteQueued, type Providers } from "./providers.js";
import { ToolCalls } from "./tool-calls.js";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** `openai:gpt-5` → provider and model id, as gen_ai.* attributes want them. */
function modelAttributes(ref: string | undefined): Attributes {
  if (!ref) return {};
  const i = ref.indexOf(":");
  return i < 0 ? { "gen_ai.request.model": ref } : { "gen_ai.provider.name": ref.slice(0, i), "gen_ai.request.model": ref.slice(i + 1) };
}

export class Recorder {
  private run: Span | undefined;
  private chat: { span?: Span; started: number; attrs: Attributes } | undefined;
  private runContext: Context | undefined;
  /** The gated calls: their spans, audit log records and metrics. */
  readonly calls: ToolCalls;
  /** Subagents running, by the call that started them (the `task` call), each an `invoke_agent <name>` span. */
  private readonly agents = new Map<string, { span: Span; attrs: Attributes }>();
  private model: string | undefined;
  private conversation: string | undefined;
  private readonly tokens;
  private readonly chatDuration;

  constructor(
    private readonly otel: Providers,
    logToolContent: boolean,
  ) {
    const meter = otel.meter;
    this.tokens = meter?.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Tokens used by a model request" });
    this.chatDuration = meter?.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "Duration of a model request" });
    this.calls = new ToolCalls(otel, logToolContent, (agent) => this.parentOf(agent));
  }

  /** The event types this recorder needs (others are never built for it). */
  static readonly TYPES = ["session_start", "turn_start", "usage", "assistant_message", "tool_start", "tool_end", "session_end", "permission_grant", "subagent"] as const;

  readonly record = (e: AgentEvent): void => {
    switch (e.type) {
      case "session_start":
        return this.startRun(e);
      case "turn_start":
        return this.startChat(e.model);
      case "usage":
        return this.usage(e);
      case "assistant_message":
        return this.endChat(e.toolCalls.length ? "tool_calls" : "stop");
      case "tool_start":
        return this.calls.start(e);
      case "tool_end":
        return this.calls.end(e);
      case "permission_grant":
        return this.log(`permission grant ${e.decision}: ${e.rules.join(", ")}`, { "event.name": "agent_host.audit.grant", "agent_host.plugin": e.plugin, "agent_host.permission.decision": e.decision, "agent_host.permission.by": e.by });
      case "session_end":
        return this.endRun(e);
      case "subagent":
        return e.phase === "start" ? this.startAgent(e) : e.phase === "turn" ? this.agentTurn(e) : e.phase === "end" ? this.endAgent(e) : undefined;
    }
  };

  private parent(): Context {
    return this.runContext ?? context.active();
  }

  /** A subagent's call's parent: its agent's span; the main conversation's: the run's. */
  private parentOf(agent: { name?: string; agent?: string; parentCallId?: string } | undefined): Context {
    const span = agent && this.agents.get(agentKey(agent))?.span;
    return span ? trace.setSpan(context.active(), span) : this.parent();
  }

  /** A subagent: an `invoke_agent <name>` span under the call that started it (the `task` call's execute_tool). */
  private startAgent(e: Of<"subagent">): void {
    const tracer = this.otel.tracer;
    if (!tracer) return;
    const caller = e.parentCallId ? this.calls.span(e.parentCallId) : undefined;
    const attrs: Attributes = { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": e.agent, ...modelAttributes(e.model) };
    if (this.conversation) attrs["gen_ai.conversation.id"] = this.conversation;
    if (e.parentCallId) attrs["agent_host.parent_call.id"] = e.parentCallId;
    const span = tracer.startSpan(`invoke_agent ${e.agent}`, { kind: SpanKind.INTERNAL, attributes: attrs }, caller ? trace.setSpan(context.active(), caller) : this.parent());
    this.agents.set(agentKey(e), { span, attrs });
  }

  /** One model request of a subagent, told when it was answered: a `chat` span under the agent's, timed after the fact. */
  private agentTurn(e: Of<"subagent">): void {
    const usage = e.usage ?? { inputTokens: 0, outputTokens: 0 };
    const attrs: Attributes = { "gen_ai.operation.name": "chat", ...modelAttributes(e.model) };
    const seconds = (e.durationMs ?? 0) / 1000;
    this.tokens?.record(usage.inputTokens, { ...attrs, "gen_ai.token.type": "input" });
    this.tokens?.record(usage.outputTokens, { ...attrs, "gen_ai.token.type": "output" });
    this.chatDuration?.record(seconds, attrs);
    const tracer = this.otel.tracer;
    if (!tracer) return;
    const end = Date.now();
    const span = tracer.startSpan(
      `chat ${attrs["gen_ai.request.model"] ?? e.model}`,
      { kind: SpanKind.CLIENT, startTime: end - (e.durationMs ?? 0), attributes: { ...attrs, "gen_ai.usage.input_tokens": usage.inputTokens, "gen_ai.usage.output_tokens": usage.outputTokens, ...(e.finish ? { "gen_ai.response.finish_reasons": [e.finish] } : {}) } },
      this.parentOf(e),
    );
    span.end(end);
    noteQueued("traces");
  }

  private endAgent(e: Of<"subagent">): void {
    const key = agentKey(e);
    const agent = this.agents.get(key);
    this.agents.delete(key);
    if (!agent) return;
    const { span } = agent;
    if (e.usage) span.setAttributes({ "gen_ai.usage.input_tokens": e.usage.inputTokens, "gen_ai.usage.output_tokens": e.usage.outputTokens });
    if (e.reason) span.setAttribute("agent_host.stop_reason", e.reason);
    if (e.turns !== undefined) span.setAttribute("agent_host.turns", e.turns);
    if (e.error) {
      span.setAttribute("error.type", e.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: redactString(e.error.message).slice(0, 500) });
    }
    span.end();
    noteQueued("traces");
  }

  private startRun(e: Of<"session_start">): void {
    this.endRun(undefined);
    this.model = e.model;
    this.conversation = e.sessionId;
    const tracer = this.otel.tracer;
    if (!tracer) return;
    this.run = tracer.startSpan("invoke_agent agent-host", {
      kind: SpanKind.INTERNAL,
      attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "agent-host", "gen_ai.conversation.id": e.sessionId, ...modelAttributes(e.model) },
    });
    // Made once: every model request and call of the run starts in it.
    this.runContext = trace.setSpan(context.active(), this.run);
  }

  private endRun(e: Of<"session_end"> | undefined): void {
    this.endChat(undefined);
    const run = this.run;
    this.run = undefined;
    this.runContext = undefined;
    if (!run) return;
    if (e) {
      run.setAttributes({ "gen_ai.usage.input_tokens": e.usage.inputTokens, "gen_ai.usage.output_tokens": e.usage.outputTokens, "agent_host.stop_reason": e.reason, "agent_host.turns": e.turns });
      if (e.reason === "error") run.setStatus({ code: SpanStatusCode.ERROR, message: e.error?.message });
      if (e.error) run.setAttribute("error.type", e.error.code);
    }
    run.end();
    noteQueued("traces");
  }

  private startChat(model: string): void {
    this.endChat(undefined);
    const attrs: Attributes = { "gen_ai.operation.name": "chat", ...modelAttributes(model) };
    const span = this.otel.tracer?.startSpan(`chat ${attrs["gen_ai.request.model"] ?? model}`, { kind: SpanKind.CLIENT, attributes: attrs }, this.parent());
    this.chat = { span, started: performance.now(), attrs };
  }

  private usage(e: Of<"usage">): void {
    const attrs = this.chat?.attrs ?? { "gen_ai.operation.name": "chat", ...modelAttributes(this.model) };
    this.chat?.span?.setAttributes({ "gen_ai.usage.input_tokens": e.inputTokens, "gen_ai.usage.output_tokens": e.outputTokens, ...(e.cacheReadTokens ? { "gen_ai.usage.cache_read.input_tokens": e.cacheReadTokens } : {}) });
    this.tokens?.record(e.inputTokens, { ...attrs, "gen_ai.token.type": "input" });
    this.tokens?.record(e.outputTokens, { ...attrs, "gen_ai.token.type": "output" });
  }

  private endChat(finish: string | undefined): void {
    const chat = this.chat;
    this.chat = undefined;
    if (!chat) return;
    if (chat.span) {
      if (finish) chat.span.setAttribute("gen_ai.response.finish_reasons", [finish]);
      chat.span.end();
      noteQueued("traces");
    }
    this.chatDuration?.record((performance.now() - chat.started) / 1000, chat.attrs);
  }

  private log(body: string, attributes: Attributes, span?: Span): void {
    if (!this.otel.logger) return;
    this.otel.logger.emit({ body, attributes, severityText: "INFO", severityNumber: 9, context: span ? trace.setSpan(context.active(), span) : this.parent() });
    noteQueued("logs");
  }

  /** A run still open when the host closes ends here (its spans are exported, not lost). */
  close(): void {
    this.calls.close();
    for (const [, a] of this.agents) a.span.end();
    this.agents.clear();
    this.endRun(undefined);
  }
}

/** A subagent is known by the call that started it (its name when a plugin started it outside a call). */
function agentKey(agent: { parentCallId?: string; agent?: string; name?: string }): string {
  return agent.parentCallId ?? `agent:${agent.agent ?? agent.name}`;
}
