/**
 * Gated calls as OpenTelemetry data: an `execute_tool <name>` span per call (the permission decision,
 * outcome and risk; MCP attributes for an MCP server's tool), its audit record as a log record, the calls
 * counter and duration histogram, and each running call's W3C trace context for the servers it calls.
 * This runs on every call, so it is written for that: attributes go on a span only when it is sampled
 * (recording), one at a time (no intermediate objects), the counter is summed here and read by the SDK
 * when it collects (an observable counter: no SDK work per call), and the histogram's attribute sets are
 * made once per tool and outcome.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import { type AgentEvent } from "../../core/index.js";
import { redactString } from "../../kit/index.js";
import { noteQueued, type Providers } from "./providers.js";

type Of<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

interface Running {
  span: Span | undefined;
  caller: string | undefined;
  args: string | undefined;
}

export class ToolCalls {
  private readonly running = new Map<string, Running>();
  /** Calls so far by tool, outcome and decision (the `agent_host.tool.calls` counter, observed when collected). */
  private readonly counts = new Map<string, { attrs: Attributes; n: number }>();
  /** The duration histogram's attribute sets, by tool and outcome. */
  private readonly durationAttrs = new Map<string, Attributes>();
  private readonly toolDuration;

  constructor(
    private readonly otel: Providers,
    private readonly logToolContent: boolean,
    /** The context a call's span starts in: its subagent's span, the run's, or none. */
    private readonly parentOf: (agent: { name: string; parentCallId?: string } | undefined) => Context,
  ) {
    const meter = otel.meter;
    this.toolDuration = meter?.createHistogram("agent_host.tool.duration", { unit: "s", description: "Duration of a gated tool call" });
    meter?.createObservableCounter("agent_host.tool.calls", { unit: "{call}", description: "Gated tool calls, by outcome" }).addCallback((result) => {
      for (const c of this.counts.values()) result.observe(c.n, c.attrs);
    });
  }

  /** The span of a running call (a subagent's parent). */
  span(callId: string): Span | undefined {
    return this.running.get(callId)?.span;
  }

  start(e: Of<"tool_start">): void {
    const args = this.logToolContent ? redactString(safeJson(e.input)) : undefined;
    const span = this.otel.tracer?.startSpan(`execute_tool ${e.name}`, { kind: SpanKind.INTERNAL }, this.parentOf(e.agent));
    if (span?.isRecording()) {
      span.setAttribute("gen_ai.operation.name", "execute_tool");
      span.setAttribute("gen_ai.tool.name", e.name);
      span.setAttribute("gen_ai.tool.type", "function");
      span.setAttribute("gen_ai.tool.call.id", e.callId);
      span.setAttribute("agent_host.tool.risk", e.risk);
      span.setAttribute("agent_host.tool.source", e.source);
      if (e.source.startsWith("mcp:")) {
        span.setAttribute("mcp.method.name", "tools/call");
        span.setAttribute("agent_host.mcp.server", e.source.slice(4));
      }
      if (e.caller) span.setAttribute("agent_host.caller", e.caller);
      if (args !== undefined) span.setAttribute("gen_ai.tool.call.arguments", args);
    }
    this.running.set(e.callId, { span, caller: e.caller, args });
  }

  end(e: Of<"tool_end">): void {
    const started = this.running.get(e.callId);
    this.running.delete(e.callId);
    if (this.toolDuration) this.metrics(e);
    const span = started?.span;
    if (span) {
      if (span.isRecording()) {
        span.setAttribute("agent_host.tool.outcome", e.outcome);
        if (e.decision) span.setAttribute("agent_host.permission.decision", e.decision);
        if (e.by) span.setAttribute("agent_host.permission.by", e.by);
        span.setAttribute("agent_host.tool.output_bytes", e.outputBytes);
        span.setAttribute("agent_host.tool.truncated", e.truncated);
        if (e.outcome !== "ok") span.setAttribute("error.type", e.outcome);
        if (e.outcome === "error" || e.outcome === "timeout") span.setStatus({ code: SpanStatusCode.ERROR, message: e.error ? redactString(e.error).slice(0, 500) : e.outcome });
      }
      span.end();
      noteQueued("traces");
    }
    if (this.otel.logger) this.log(e, started, span);
  }

  /** Not `by` (a rule's text) as a metric attribute: metric attributes stay few-valued. */
  private metrics(e: Of<"tool_end">): void {
    const key = `${e.name}\u0000${e.outcome}`;
    let attrs = this.durationAttrs.get(key);
    if (!attrs) this.durationAttrs.set(key, (attrs = { "gen_ai.tool.name": e.name, "agent_host.tool.outcome": e.outcome }));
    this.toolDuration!.record(e.durationMs / 1000, attrs);
    const countKey = e.decision ? `${key}\u0000${e.decision}` : key;
    const count = this.counts.get(countKey);
    if (count) count.n++;
    else this.counts.set(countKey, { attrs: e.decision ? { ...attrs, "agent_host.permission.decision": e.decision } : attrs, n: 1 });
  }

  /** The call's audit record as a log record, tied to its span (what the span has besides is found through it). */
  private log(e: Of<"tool_end">, started: Running | undefined, span: Span | undefined): void {
    const record: Attributes = {
      "event.name": "agent_host.audit.call",
      "gen_ai.tool.call.id": e.callId,
      "gen_ai.tool.name": e.name,
      "agent_host.tool.outcome": e.outcome,
      "agent_host.duration_ms": e.durationMs,
      "agent_host.tool.output_bytes": e.outputBytes,
      "agent_host.tool.truncated": e.truncated,
    };
    if (e.decision) record["agent_host.permission.decision"] = e.decision;
    if (e.by) record["agent_host.permission.by"] = e.by;
    if (started?.caller !== undefined) record["agent_host.caller"] = started.caller;
    if (e.error) record["error.message"] = redactString(e.error).slice(0, 500);
    if (started?.args !== undefined) record["gen_ai.tool.call.arguments"] = started.args;
    this.otel.logger!.emit({ body: `tool call ${e.name}: ${e.outcome}`, attributes: record, severityText: "INFO", severityNumber: 9, context: span ? trace.setSpan(context.active(), span) : this.parentOf(undefined) });
    noteQueued("logs");
  }

  /** A running call's W3C trace context (its execute_tool span), for the servers it calls (MCP `_meta`, SEP-414). */
  readonly traceContext = (callId: string): Record<string, string> | undefined => {
    const span = this.running.get(callId)?.span;
    if (!span) return undefined;
    const { traceId, spanId, traceFlags, traceState } = span.spanContext();
    const traceparent = `00-${traceId}-${spanId}-${traceFlags & 1 ? "01" : "00"}`;
    const tracestate = traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  };

  /** Calls still running when the host closes: their spans end here (exported, not lost). */
  close(): void {
    for (const t of this.running.values()) t.span?.end();
    this.running.clear();
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "(unserializable)";
  }
}
