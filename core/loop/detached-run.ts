/**
 * A run of the model that does not touch the session (a subagent's): its own system prompt and message
 * list, a subset of the tools, its model and turn limit, the caller's signal. Every tool call goes
 * through the same gate as the session's, made for the agent (`CallOptions.agent`): refused outside its
 * tools, bounded by its mode, named in the audit and the events. `subagentStart` / `subagentStop` run
 * around it, and `subagent` events say when it starts, each call it makes, and how it ends.
 */
import { AgentError, errorMessage } from "../../kit/errors.js";
import type { AgentEvent, StopReason } from "../hooks/events.js";
import type { SubagentStartInfo, SubagentStopInfo } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { DetachedRunOptions, DetachedRunResult, PluginHost } from "../host-types.js";
import { Aborted, streamWithRetries, type TurnOutput } from "./model-turn.js";
import type { ModelMessage, ModelProvider, ModelToolCall } from "./model.js";
import { DEFAULT_MAX_TURNS, resolveModel } from "./run-setup.js";
import type { CallAgent, JsonSchema } from "../types.js";

interface DetachedDeps {
  host: PluginHost;
  hooks: RawHooks;
}

export async function runDetached(deps: DetachedDeps, options: DetachedRunOptions): Promise<DetachedRunResult> {
  const { host } = deps;
  const { ref, provider, model } = resolveModel(host, options.model ?? host.session.model);
  const maxTurns = options.maxTurns ?? host.config.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new AgentError("E_USAGE", `maxTurns must be a positive integer; got ${maxTurns}.`);
  if (options.tools.some((name) => !host.tools.get(name))) await host.tools.load({ waitMs: host.config.tools?.loadWaitMs ?? 3000, skipReady: true });
  const run = new DetachedRun(deps, options, { ref, provider, model, maxTurns });
  return run.execute();
}

interface Resolved {
  ref: string;
  provider: ModelProvider;
  model: string;
  maxTurns: number;
}

class DetachedRun {
  private readonly started = performance.now();
  private readonly messages: ModelMessage[] = [];
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private readonly signal: AbortSignal;
  private readonly agent: CallAgent;
  private turns = 0;
  private toolCalls = 0;
  private text = "";

  constructor(
    private readonly deps: DetachedDeps,
    private readonly options: DetachedRunOptions,
    private readonly resolved: Resolved,
  ) {
    this.signal = options.signal ?? new AbortController().signal;
    const { name, parentCallId, mode } = options.agent;
    this.agent = Object.freeze({ name, tools: Object.freeze([...options.tools]), ...(parentCallId ? { parentCallId } : {}), ...(mode ? { mode } : {}) });
  }

  private info(): SubagentStartInfo {
    const { name, parentCallId } = this.options.agent;
    return { sessionId: this.deps.host.sessionId, agent: name, ...(parentCallId ? { parentCallId } : {}), model: this.resolved.ref, cwd: this.deps.host.workspace.root };
  }

  async execute(): Promise<DetachedRunResult> {
    const { hooks, host } = this.deps;
    const info = this.info();
    host.emit({ type: "subagent", phase: "start", agent: info.agent, ...parent(info), model: info.model });
    if (hooks.subagentStart.isUsed()) await hooks.subagentStart.promise(Object.freeze({ ...info }));
    let reason: StopReason;
    let error: { code: string; message: string } | undefined;
    this.push({ role: "user", content: this.options.prompt });
    try {
      reason = await this.loop();
    } catch (err) {
      if (err instanceof Aborted || this.signal.aborted) reason = "aborted";
      else {
        reason = "error";
        error = { code: (err as { code?: string }).code ?? "E_MODEL", message: errorMessage(err) };
      }
    }
    const result: DetachedRunResult = {
      reason,
      ok: reason === "end_turn",
      text: this.text,
      model: this.resolved.ref,
      turns: this.turns,
      toolCalls: this.toolCalls,
      usage: { ...this.usage },
      durationMs: performance.now() - this.started,
      messages: Object.freeze([...this.messages]),
      ...(error ? { error } : {}),
    };
    const stop: SubagentStopInfo = { ...info, reason, text: result.text, turns: result.turns, usage: result.usage };
    if (hooks.subagentStop.isUsed()) await hooks.subagentStop.promise(Object.freeze(stop));
    host.emit({ type: "subagent", phase: "end", agent: info.agent, ...parent(info), model: info.model, reason, turns: result.turns, usage: result.usage, durationMs: result.durationMs, ...(error ? { error } : {}) });
    return result;
  }

  private push(message: ModelMessage): void {
    this.messages.push(message);
    this.options.onMessage?.(message);
  }

  private async loop(): Promise<StopReason> {
    const { maxTurns } = this.resolved;
    for (;;) {
      if (this.signal.aborted) throw new Aborted();
      this.turns++;
      let turn: TurnOutput;
      const sent = performance.now();
      try {
        turn = await this.request();
      } catch (err) {
        if (err instanceof Aborted && err.partial.trim()) this.text = err.partial;
        throw err;
      }
      if (turn.usage) {
        this.usage.inputTokens += turn.usage.inputTokens;
        this.usage.outputTokens += turn.usage.outputTokens;
      }
      this.turnEnded(turn, performance.now() - sent);
      this.text = turn.text;
      this.push({ role: "assistant", content: turn.text, ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}) });
      if (turn.toolCalls.length === 0) return turn.stop === "max_tokens" ? "max_tokens" : "end_turn";
      for (const message of await this.runTools(turn.toolCalls)) this.push(message);
      if (this.signal.aborted) throw new Aborted();
      if (this.turns >= maxTurns) return "max_turns";
    }
  }

  /** The `turn` event: one model request of the agent answered (telemetry's chat span). */
  private turnEnded(turn: TurnOutput, durationMs: number): void {
    const { host } = this.deps;
    const { name, parentCallId } = this.options.agent;
    const finish = turn.toolCalls.length ? "tool_calls" : turn.stop === "max_tokens" ? "length" : "stop";
    const usage = { inputTokens: turn.usage?.inputTokens ?? 0, outputTokens: turn.usage?.outputTokens ?? 0 };
    host.emit({ type: "subagent", phase: "turn", agent: name, ...(parentCallId ? { parentCallId } : {}), model: this.resolved.ref, turns: this.turns, usage, durationMs, finish });
  }

  private request(): Promise<TurnOutput> {
    const { host } = this.deps;
    const tools = this.options.tools.flatMap((name) => {
      const t = host.tools.get(name);
      return t ? [{ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema }] : [];
    });
    const request = { model: this.resolved.model, system: this.options.system, messages: [...this.messages], tools };
    // The agent's stream is not the session's answer: its deltas are not shown; retries are.
    const emit = (e: AgentEvent) => void (e.type === "retry" && host.emit(e));
    return streamWithRetries(request, { provider: this.resolved.provider, signal: this.signal, emit, retry: this.options.retry, idleTimeoutMs: this.options.idleTimeoutMs });
  }

  /** Consecutive read-only calls run concurrently, the others one at a time, in order (as in the session's loop). */
  private async runTools(calls: ModelToolCall[]): Promise<ModelMessage[]> {
    const results: ModelMessage[] = new Array(calls.length);
    for (let i = 0; i < calls.length; ) {
      let j = i;
      while (j < calls.length && this.readOnly(calls[j])) j++;
      const batch = j > i ? calls.slice(i, j) : [calls[i]];
      const done = await Promise.all(batch.map((c) => this.runTool(c)));
      for (const [k, m] of done.entries()) results[i + k] = m;
      i += batch.length;
    }
    return results;
  }

  private readOnly(call: ModelToolCall): boolean {
    const tool = this.deps.host.tools.get(call.name);
    return !tool || tool.risk === "read";
  }

  private async runTool(call: ModelToolCall): Promise<ModelMessage> {
    const { host } = this.deps;
    const message = (content: string, isError: boolean): ModelMessage => ({ role: "tool", toolCallId: call.id, name: call.name, content, ...(isError ? { isError: true } : {}) });
    if (this.signal.aborted) return message(`Not run: the run was cancelled before ${call.name} started.`, true);
    this.toolCalls++;
    const result = await host.tools.call(call.name, call.input, { signal: this.signal, callId: call.id, agent: this.agent });
    const { name, parentCallId } = this.options.agent;
    host.emit({ type: "subagent", phase: "tool", agent: name, ...(parentCallId ? { parentCallId } : {}), tool: { name: call.name, callId: result.callId, outcome: result.outcome } });
    if (call.inputError && result.outcome === "invalid") {
      return message(`The arguments for ${call.name} were not valid JSON (${call.inputError}). Call the tool again with a JSON object that matches its input schema.`, true);
    }
    return message(result.output === "" && result.ok ? "(no output)" : result.output, !result.ok);
  }
}

function parent(info: { parentCallId?: string }): { parentCallId?: string } {
  return info.parentCallId ? { parentCallId: info.parentCallId } : {};
}
