/**
 * A run of the model that does not touch the session (a subagent's): its own system prompt and message
 * list, a subset of the tools, its model and turn limit, the caller's signal. Every tool call goes
 * through the same gate as the session's, made for the agent (`CallOptions.agent`): refused outside its
 * tools, bounded by its mode, named in the audit and the events. `subagentStart` / `subagentStop` run
 * around it, and `subagent` events say when it starts, each call it makes, and how it ends. Its turns
 * are the session's (turns.ts).
 */
import type { AgentEvent } from "../hooks/events.js";
import type { SubagentStartInfo, SubagentStopInfo } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { DetachedRunOptions, DetachedRunResult, PluginHost } from "../host-types.js";
import type { TurnOutput } from "./model-turn.js";
import type { ModelMessage, ModelToolCall } from "./model.js";
import type { JsonSchema, ToolResult } from "../types.js";
import { DEFAULT_LOAD_WAIT_MS, resolveRun, Turns, type ResolvedRun } from "./turns.js";

interface DetachedDeps {
  host: PluginHost;
  hooks: RawHooks;
}

export async function runDetached(deps: DetachedDeps, options: DetachedRunOptions): Promise<DetachedRunResult> {
  const { host } = deps;
  const resolved = resolveRun(host, options);
  if (options.tools.some((name) => !host.tools.get(name))) await host.tools.load({ waitMs: host.config.tools?.loadWaitMs ?? DEFAULT_LOAD_WAIT_MS, skipReady: true });
  return new DetachedRun(deps.hooks, host, options, resolved).execute();
}

class DetachedRun extends Turns {
  private readonly messages: ModelMessage[] = [];
  /** Named in the `subagent` events and the hooks' views. */
  private readonly who: { agent: string; parentCallId?: string };

  constructor(
    private readonly hooks: RawHooks,
    host: PluginHost,
    private readonly options: DetachedRunOptions,
    resolved: ResolvedRun,
  ) {
    super(host, resolved, options, "the run was cancelled");
    const { name, parentCallId, mode } = options.agent;
    this.agent = Object.freeze({ name, tools: Object.freeze([...options.tools]), ...(parentCallId ? { parentCallId } : {}), ...(mode ? { mode } : {}) });
    this.who = { agent: name, ...(parentCallId ? { parentCallId } : {}) };
  }

  async execute(): Promise<DetachedRunResult> {
    const { hooks, host } = this;
    const model = this.resolved.ref;
    const info: SubagentStartInfo = { sessionId: host.sessionId, ...this.who, model, cwd: host.workspace.root };
    host.emit({ type: "subagent", phase: "start", ...this.who, model });
    if (hooks.subagentStart.isUsed()) await hooks.subagentStart.promise(Object.freeze({ ...info }));
    this.add([{ role: "user", content: this.options.prompt }]);
    const { reason, error } = await this.settle(() => this.loop());
    const result: DetachedRunResult = { ...this.outcome(reason, {}), messages: Object.freeze([...this.messages]), ...(error ? { error } : {}) };
    const stop: SubagentStopInfo = { ...info, reason, text: result.text, turns: result.turns, usage: result.usage };
    if (hooks.subagentStop.isUsed()) await hooks.subagentStop.promise(Object.freeze(stop));
    host.emit({ type: "subagent", phase: "end", ...this.who, model, reason, turns: result.turns, usage: result.usage, durationMs: result.durationMs, ...(error ? { error } : {}) });
    return result;
  }

  protected override add(messages: ModelMessage[]): void {
    for (const message of messages) {
      this.messages.push(message);
      this.options.onMessage?.(message);
    }
  }

  /** The `turn` event: one model request of the agent answered (telemetry's chat span). */
  protected override answered(turn: TurnOutput, durationMs: number): void {
    const finish = turn.toolCalls.length ? "tool_calls" : turn.stop === "max_tokens" ? "length" : "stop";
    const usage = { inputTokens: turn.usage?.inputTokens ?? 0, outputTokens: turn.usage?.outputTokens ?? 0 };
    this.host.emit({ type: "subagent", phase: "turn", ...this.who, model: this.resolved.ref, turns: this.turns, usage, durationMs, finish });
  }

  protected override request(): Promise<TurnOutput> {
    const tools = this.options.tools.flatMap((name) => {
      const t = this.host.tools.get(name);
      return t ? [{ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema }] : [];
    });
    // The agent's stream is not the session's answer: its deltas are not shown; retries are.
    const emit = (e: AgentEvent) => void (e.type === "retry" && this.host.emit(e));
    return this.stream({ model: this.resolved.model, system: this.options.system, messages: [...this.messages], tools }, emit);
  }

  protected override called(call: ModelToolCall, result: ToolResult): void {
    this.host.emit({ type: "subagent", phase: "tool", ...this.who, tool: { name: call.name, callId: result.callId, outcome: result.outcome } });
  }
}
