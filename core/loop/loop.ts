/**
 * The agent loop: send the conversation to the model, run the tool calls it asks for through the
 * gate, feed the results back, until the model stops calling tools (or the turn limit, a failure or
 * the user stops it). Loaded lazily by `host.run`.
 *
 * Context: the loop builds the base request (system prompt, instruction files, every registered tool)
 * and hands it to the `beforeModelRequest` waterfall, where plugins add or rewrite (skills...); the plugin
 * that manages the context sees each request's size (`fitContext`) and a failed one (`modelError`), and may
 * compact the conversation (compaction-run.ts). Each finished step goes to the session transcript. Retries
 * of failed model requests are model-turn.ts's.
 */
import { appendAll } from "../../kit/array-bulk.js";
import { AgentError, errorMessage } from "../../kit/errors.js";
import type { StopReason } from "../hooks/events.js";
import { modelErrorDecision, type PointRequest } from "../session/compaction-run.js";
import { debugChain, withNote } from "./loop-util.js";
import { Aborted, streamWithRetries, type TurnOutput } from "./model-turn.js";
import { contextBlocks, type SessionLifecycle } from "../session/session-lifecycle.js";
import type { RunControl } from "../session/session-parts.js";
import { ModelError, type ModelMessage, type ModelProvider, type ModelRequest, type ModelToolCall, type ModelUsage } from "./model.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession, Host, RunOptions, RunResult } from "../host-types.js";
import type { JsonSchema, ToolResult } from "../types.js";
import { DEFAULT_MAX_TURNS, resolveModel, systemPrompt } from "./run-setup.js";
/** `stop` handlers may make a run go on this many times in a row (Claude Code's bound); then it ends. */
export const MAX_STOP_CONTINUATIONS = 8;
/** How long a run's first request waits for tool sources without cached tools (config `tools.loadWaitMs`). */
export const DEFAULT_LOAD_WAIT_MS = 3000;

export type { RunControl };

type MutableSession = { -readonly [K in keyof AgentSession]: AgentSession[K] };

export async function runAgent(host: Host, hooks: RawHooks, control: RunControl, prompt: string, options: RunOptions = {}): Promise<RunResult> {
  const session = host.session as MutableSession;
  if (session.running) throw new AgentError("E_USAGE", "A run is already in progress in this session; wait for it or cancel it first.");
  const { ref, provider, model } = resolveModel(host, options.model ?? session.model);
  const maxTurns = options.maxTurns ?? host.config.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new AgentError("E_USAGE", `maxTurns must be a positive integer; got ${maxTurns}.`);

  session.running = true;
  const run = new Run(host, hooks, control, session, { ref, provider, model, maxTurns, options });
  control.current = run;
  if (control.transcript) control.transcript.runModel = ref;
  try {
    return await run.execute(prompt);
  } finally {
    if (control.transcript) control.transcript.runModel = undefined;
    control.current = undefined;
    session.running = false;
  }
}

interface RunSetup {
  ref: string;
  provider: ModelProvider;
  model: string;
  maxTurns: number;
  options: RunOptions;
}


class Run {
  private readonly started = performance.now();
  private readonly signal: AbortSignal;
  private turns = 0;
  private toolCalls = 0;
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private lastText = "";
  /** Set by a plugin's `ctx.stopRun`, or a blocked prompt: the run ends at the next step. */
  private stoppedBy: { plugin: string; reason: string } | undefined;
  private continuations = 0;
  private readonly lifecycle: SessionLifecycle;

  constructor(
    private readonly host: Host,
    private readonly hooks: RawHooks,
    private readonly control: RunControl,
    private readonly session: MutableSession,
    private readonly setup: RunSetup,
  ) {
    this.signal = setup.options.signal ?? new AbortController().signal;
    this.lifecycle = control.lifecycle;
  }

  /** A finished step goes to the transcript (one write, fsync) before the loop goes on. */
  private persist(): void {
    this.control.transcript?.sync(this.session.messages);
  }

  requestStop(plugin: string, reason: string): void {
    this.stoppedBy ??= { plugin, reason };
  }

  async execute(prompt: string): Promise<RunResult> {
    const { host, session, setup } = this;
    host.emit({ type: "session_start", sessionId: session.id, model: setup.ref, cwd: host.workspace.root, tools: host.tools.list().length });
    host.emit({ type: "user_message", text: prompt });

    let reason: StopReason;
    let error: { code: string; message: string } | undefined;
    try {
      // The conversation starts (sessionStart), then the prompt is screened (userPromptSubmit): a
      // blocked prompt never enters the conversation.
      const context = await this.lifecycle.begin(setup.ref, this.signal);
      const submitted = await this.lifecycle.submit(prompt, this.signal);
      if ("blocked" in submitted) {
        this.stoppedBy = submitted.blocked;
        host.emit({ type: "notice", level: "warn", source: submitted.blocked.plugin, message: `Prompt blocked by plugin ${submitted.blocked.plugin}: ${submitted.blocked.reason}` });
        reason = "stopped";
      } else {
        session.messages.push({ role: "user", content: submitted.content });
        this.persist();
        const base = await systemPrompt(host, setup.options.systemPrompt, { cwd: host.cwd, userConfigDir: this.control.userConfigDir });
        reason = await this.loop(context.length ? `${base}\n\n${contextBlocks(context)}` : base);
      }
    } catch (err) {
      if (err instanceof Aborted || this.signal.aborted) reason = "aborted";
      else {
        reason = "error";
        error = { code: (err as { code?: string }).code ?? "E_MODEL", message: errorMessage(err) };
        host.emit({ type: "error", ...error });
        if (process.env.AGENT_DEBUG === "1") process.stderr.write(`[agent:loop] ${debugChain(err)}\n`);
      }
    }

    // Whatever ended the run (a cancel keeps the partial answer), the conversation as it stands is saved.
    this.persist();
    const result: RunResult = {
      reason,
      ok: reason === "end_turn",
      text: this.lastText,
      model: setup.ref,
      sessionId: session.id,
      turns: this.turns,
      toolCalls: this.toolCalls,
      usage: { ...this.usage },
      durationMs: performance.now() - this.started,
      ...(error ? { error } : {}),
      ...(reason === "stopped" && this.stoppedBy ? { stoppedBy: { ...this.stoppedBy } } : {}),
    };
    host.emit({
      type: "session_end",
      sessionId: session.id,
      reason,
      turns: result.turns,
      usage: result.usage,
      durationMs: result.durationMs,
      result: result.text,
      ...(error ? { error } : {}),
      ...(result.stoppedBy ? { stoppedBy: result.stoppedBy } : {}),
    });
    return result;
  }

  /**
   * Tool sources (MCP servers) without cached tools load as the run starts: the first request waits at
   * most `tools.loadWaitMs` for them, later ones not at all. Those with cached tools start after the
   * first answer (or when a call needs one), so their start-up never competes with the first request.
   * What is still loading, for the model.
   */
  private async toolsLoading(): Promise<string[]> {
    if (this.turns === 2) void this.host.tools.load();
    const waitMs = this.turns === 1 ? (this.host.config.tools?.loadWaitMs ?? DEFAULT_LOAD_WAIT_MS) : 0;
    return (await this.host.tools.load({ waitMs, skipReady: true })).pending;
  }

  private async loop(system: string): Promise<StopReason> {
    const { host, session, setup } = this;
    for (;;) {
      if (this.signal.aborted) throw new Aborted();
      if (this.stoppedBy) return this.stopNotice();
      this.turns++;
      host.emit({ type: "turn_start", turn: this.turns, model: setup.ref });
      const loading = await this.toolsLoading();
      const sys = loading.length ? `${system}\n\nTools still loading (they join a later turn): ${loading.join(", ")}.` : system;

      let turn: TurnOutput;
      try {
        turn = await this.requestTurn(sys);
      } catch (err) {
        if (err instanceof Aborted) this.keepPartialText(err.partial);
        throw err;
      }
      this.addUsage(turn.usage);
      this.lastText = turn.text;
      host.emit({ type: "assistant_message", text: turn.text, toolCalls: turn.toolCalls.map(({ id, name, input }) => ({ id, name, input })) });
      session.messages.push({ role: "assistant", content: turn.text, ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}) });

      if (turn.toolCalls.length === 0) {
        this.persist();
        if (turn.stop === "max_tokens") return "max_tokens";
        // `stop` handlers may make the run go on, with a message for the model; bounded.
        const more = await this.lifecycle.stop({ stopHookActive: this.continuations > 0, lastMessage: turn.text, turns: this.turns, signal: this.signal });
        if (more === undefined || this.stoppedBy) return this.stoppedBy ? this.stopNotice() : "end_turn";
        if (++this.continuations > MAX_STOP_CONTINUATIONS) {
          host.emit({ type: "notice", level: "warn", source: "loop", message: `Stop handlers asked the run to go on ${MAX_STOP_CONTINUATIONS} times in a row; it ends here.` });
          return "end_turn";
        }
        if (this.turns >= setup.maxTurns) return "max_turns";
        session.messages.push({ role: "user", content: more });
        this.persist();
        continue;
      }

      // Results always go into the conversation (even when cancelled) so it stays valid for the next prompt.
      appendAll(session.messages, await this.runTools(turn.toolCalls));
      this.persist();
      if (this.signal.aborted) throw new Aborted();
      if (this.turns >= setup.maxTurns) return "max_turns";
    }
  }

  private async buildRequest(system: string): Promise<ModelRequest> {
    const base: ModelRequest = {
      model: this.setup.model,
      system,
      messages: [...this.session.messages],
      tools: this.host.tools.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema })),
    };
    return this.hooks.beforeModelRequest.isUsed() ? await this.hooks.beforeModelRequest.promise(base) : base;
  }

  /**
   * The request for this turn. The plugin that manages the context sees its size first (`fitContext`) and
   * may compact the conversation, after which it is rebuilt; a failed request goes to `modelError`, which may
   * have it sent again, rebuilt, once (after a compaction), or add a note to the error.
   */
  private async requestTurn(system: string): Promise<TurnOutput> {
    let request = await this.fittedRequest(system, false);
    const turn = { provider: this.setup.provider, signal: this.signal, emit: this.host.emit, retry: this.setup.options.retry, idleTimeoutMs: this.setup.options.idleTimeoutMs };
    try {
      return await streamWithRetries(request, turn);
    } catch (err) {
      if (!(await this.retryAfter(err, request, false))) throw err;
      request = await this.fittedRequest(system, true);
      try {
        return await streamWithRetries(request, turn);
      } catch (again) {
        await this.retryAfter(again, request, true);
        throw again;
      }
    }
  }

  /** What the plugin that manages the context is told of a request, and what a compaction needs of it. */
  private at(request: ModelRequest): PointRequest {
    return { provider: this.setup.provider, ref: this.setup.ref, request, signal: this.signal };
  }

  /** The request built, shown to `fitContext` (`compacted`: rebuilt after this turn's compaction), and rebuilt when it compacted. */
  private async fittedRequest(system: string, compacted: boolean): Promise<ModelRequest> {
    const request = await this.buildRequest(system);
    const compactions = this.control.compactions;
    if (!compactions || !this.hooks.fitContext.isUsed()) return request;
    const fit = compactions.point(this.session, this.at(request), { turn: this.turns, compacted });
    await this.hooks.fitContext.promise(fit.point);
    if (fit.outcome && this.signal.aborted) throw new Aborted();
    if (!fit.outcome?.ok) return request;
    return compacted ? this.buildRequest(system) : this.fittedRequest(system, true);
  }

  /** A failed request: true when a `modelError` handler asks for it again (the loop sends it once more); its note goes on the error. */
  private async retryAfter(err: unknown, request: ModelRequest, retried: boolean): Promise<boolean> {
    const compactions = this.control.compactions;
    if (!(err instanceof ModelError) || !compactions || !this.hooks.modelError.isUsed()) return false;
    const failure = compactions.point(this.session, this.at(request), { error: Object.freeze({ code: err.code, message: err.message }), retried });
    const decision = modelErrorDecision(failure.point);
    await this.hooks.modelError.promise(decision);
    if (failure.outcome && this.signal.aborted) throw new Aborted();
    const d = decision.answer;
    if (d && "note" in d) throw withNote(err, d.note);
    return d !== undefined && "retry" in d;
  }

  private stopNotice(): StopReason {
    const by = this.stoppedBy!;
    this.host.emit({ type: "notice", level: "warn", source: by.plugin, message: `Run stopped by plugin ${by.plugin}: ${by.reason}` });
    return "stopped";
  }

  /** The user saw the partial answer: keep it in the conversation so a follow-up makes sense. */
  private keepPartialText(text: string): void {
    if (!text.trim()) return;
    this.lastText = text;
    this.session.messages.push({ role: "assistant", content: text });
  }

  private addUsage(u: ModelUsage | undefined): void {
    if (!u) return;
    this.control.transcript?.usage(u);
    this.usage.inputTokens += u.inputTokens;
    this.usage.outputTokens += u.outputTokens;
    this.session.usage.inputTokens += u.inputTokens;
    this.session.usage.outputTokens += u.outputTokens;
    this.host.emit({
      type: "usage",
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      totalInputTokens: this.usage.inputTokens,
      totalOutputTokens: this.usage.outputTokens,
      ...(u.cacheReadTokens ? { cacheReadTokens: u.cacheReadTokens } : {}),
      ...(u.cacheWriteTokens ? { cacheWriteTokens: u.cacheWriteTokens } : {}),
    });
  }

  /**
   * Run the turn's tool calls through the gate. Consecutive read-only calls run concurrently; the
   * others one at a time, in order (they may ask permission, and order matters for writes).
   * Results come back in call order.
   */
  private async runTools(calls: ModelToolCall[]): Promise<ModelMessage[]> {
    const results: ModelMessage[] = new Array(calls.length);
    const run = async (i: number) => {
      results[i] = await this.runTool(calls[i]);
    };
    for (let i = 0; i < calls.length; ) {
      let j = i;
      while (j < calls.length && this.isReadOnly(calls[j])) j++;
      if (j > i) {
        await Promise.all(calls.slice(i, j).map((_, k) => run(i + k)));
        i = j;
      } else {
        await run(i++);
      }
    }
    return results;
  }

  private isReadOnly(call: ModelToolCall): boolean {
    const tool = this.host.tools.get(call.name);
    // Unknown tools fail at once in the gate; running them alongside is harmless.
    return !tool || tool.risk === "read";
  }

  private async runTool(call: ModelToolCall): Promise<ModelMessage> {
    const message = (content: string, isError: boolean): ModelMessage => ({
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content,
      ...(isError ? { isError: true } : {}),
    });
    // After Ctrl-C, calls not started yet are not started at all (not even asked about).
    if (this.signal.aborted) return message(`Not run: the user cancelled before ${call.name} started.`, true);
    this.toolCalls++;
    const result: ToolResult = await this.host.tools.call(call.name, call.input, { signal: this.signal, callId: call.id });
    if (call.inputError && result.outcome === "invalid") {
      return message(
        `The arguments for ${call.name} were not valid JSON (${call.inputError}). Call the tool again with a JSON object that matches its input schema.`,
        true,
      );
    }
    return message(result.output === "" && result.ok ? "(no output)" : result.output, !result.ok);
  }
}
