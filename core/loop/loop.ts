/**
 * The session's run: the turns (turns.ts, shared with a subagent's run) over the session's conversation,
 * with the lifecycle hooks around them, the transcript after each step, `ctx.stopRun`, and the context
 * plugin's points. Loaded lazily by `host.run`.
 *
 * Context: the loop builds the base request (system prompt, instruction files, every registered tool)
 * and hands it to the `beforeModelRequest` waterfall, where plugins add or rewrite (skills...); the plugin
 * that manages the context sees each request's size (`fitContext`) and a failed one (`modelError`), and may
 * compact the conversation (compaction-run.ts). Each finished step goes to the session transcript. Retries
 * of failed model requests are model-turn.ts's.
 */
import { appendAll } from "../../kit/array-bulk.js";
import { AgentError, debugChain } from "../../kit/errors.js";
import { withNote } from "../../kit/provider/model-error.js";
import type { StopReason } from "../hooks/events.js";
import { modelErrorDecision, type PointRequest } from "../session/compaction-run.js";
import { Aborted, type TurnOutput } from "./model-turn.js";
import { contextBlocks } from "../session/session-lifecycle.js";
import type { RunControl } from "../session/session.js";
import { ModelError, type ModelMessage, type ModelRequest, type ModelUsage } from "./model.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { AgentSession, Host, RunOptions, RunResult } from "../host-types.js";
import type { JsonSchema } from "../types.js";
import { systemPrompt } from "./run-setup.js";
import { DEFAULT_LOAD_WAIT_MS, resolveRun, Turns, type ResolvedRun } from "./turns.js";
/** `stop` handlers may make a run go on this many times in a row (Claude Code's bound); then it ends. */
export const MAX_STOP_CONTINUATIONS = 8;

type MutableSession = { -readonly [K in keyof AgentSession]: AgentSession[K] };

export async function runAgent(host: Host, hooks: RawHooks, control: RunControl, prompt: string, options: RunOptions = {}): Promise<RunResult> {
  const session = host.session as MutableSession;
  if (session.running) throw new AgentError("E_USAGE", "A run is already in progress in this session; wait for it or cancel it first.");
  const resolved = resolveRun(host, options);

  session.running = true;
  const run = new Run(host, hooks, control, session, resolved, options);
  control.current = run;
  if (control.transcript) control.transcript.runModel = resolved.ref;
  try {
    return await run.execute(prompt);
  } finally {
    if (control.transcript) control.transcript.runModel = undefined;
    control.current = undefined;
    session.running = false;
  }
}

class Run extends Turns {
  /** Set by a plugin's `ctx.stopRun`, or a blocked prompt: the run ends at the next step. */
  private stoppedBy: { plugin: string; reason: string } | undefined;
  private continuations = 0;
  private system = "";

  constructor(
    host: Host,
    private readonly hooks: RawHooks,
    private readonly control: RunControl,
    private readonly session: MutableSession,
    resolved: ResolvedRun,
    private readonly options: RunOptions,
  ) {
    super(host, resolved, options, "the user cancelled");
  }

  /** A finished step goes to the transcript (one write, fsync) before the loop goes on. */
  private persist(): void {
    this.control.transcript?.sync(this.session.messages);
  }

  requestStop(plugin: string, reason: string): void {
    this.stoppedBy ??= { plugin, reason };
  }

  async execute(prompt: string): Promise<RunResult> {
    const { host, session, resolved } = this;
    host.emit({ type: "session_start", sessionId: session.id, model: resolved.ref, cwd: host.workspace.root, tools: host.tools.list().length });
    host.emit({ type: "user_message", text: prompt });

    const { reason, error } = await this.settle(async () => {
      // The conversation starts (sessionStart), then the prompt is screened (userPromptSubmit): a
      // blocked prompt never enters the conversation.
      const context = await this.control.lifecycle.begin(resolved.ref, this.signal);
      const submitted = await this.control.lifecycle.submit(prompt, this.signal);
      if ("blocked" in submitted) {
        this.stoppedBy = submitted.blocked;
        host.emit({ type: "notice", level: "warn", source: submitted.blocked.plugin, message: `Prompt blocked by plugin ${submitted.blocked.plugin}: ${submitted.blocked.reason}` });
        return "stopped";
      }
      session.messages.push({ role: "user", content: submitted.content });
      this.persist();
      const base = await systemPrompt(host, this.options.systemPrompt, { cwd: host.cwd, userConfigDir: this.control.userConfigDir });
      this.system = context.length ? `${base}\n\n${contextBlocks(context)}` : base;
      return this.loop();
    });

    // Whatever ended the run (a cancel keeps the partial answer), the conversation as it stands is saved.
    this.persist();
    const result: RunResult = {
      ...this.outcome(reason, { sessionId: session.id }),
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

  protected override failed(error: { code: string; message: string }, err: unknown): void {
    this.host.emit({ type: "error", ...error });
    if (process.env.AGENT_DEBUG === "1") process.stderr.write(`[agent:loop] ${debugChain(err)}\n`);
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

  protected override stopped(): StopReason | undefined {
    return this.stoppedBy ? this.stopNotice() : undefined;
  }

  protected override async request(): Promise<TurnOutput> {
    this.host.emit({ type: "turn_start", turn: this.turns, model: this.resolved.ref });
    const loading = await this.toolsLoading();
    return this.requestTurn(loading.length ? `${this.system}\n\nTools still loading (they join a later turn): ${loading.join(", ")}.` : this.system);
  }

  protected override answered(turn: TurnOutput): void {
    if (turn.usage) this.noteUsage(turn.usage);
    this.host.emit({ type: "assistant_message", text: turn.text, toolCalls: turn.toolCalls.map(({ id, name, input }) => ({ id, name, input })) });
  }

  protected override add(messages: ModelMessage[]): void {
    appendAll(this.session.messages, messages);
  }

  protected override committed(): void {
    this.persist();
  }

  protected override async ended(turn: TurnOutput): Promise<StopReason | undefined> {
    this.persist();
    if (turn.stop === "max_tokens") return "max_tokens";
    // `stop` handlers may make the run go on, with a message for the model; bounded.
    const more = await this.control.lifecycle.stop({ stopHookActive: this.continuations > 0, lastMessage: turn.text, turns: this.turns, signal: this.signal });
    if (more === undefined || this.stoppedBy) return this.stoppedBy ? this.stopNotice() : "end_turn";
    if (++this.continuations > MAX_STOP_CONTINUATIONS) {
      this.host.emit({ type: "notice", level: "warn", source: "loop", message: `Stop handlers asked the run to go on ${MAX_STOP_CONTINUATIONS} times in a row; it ends here.` });
      return "end_turn";
    }
    if (this.turns >= this.resolved.maxTurns) return "max_turns";
    this.session.messages.push({ role: "user", content: more });
    this.persist();
    return undefined;
  }

  private async buildRequest(system: string): Promise<ModelRequest> {
    const base: ModelRequest = {
      model: this.resolved.model,
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
    try {
      return await this.stream(request, this.host.emit);
    } catch (err) {
      if (!(await this.retryAfter(err, request, false))) throw err;
      request = await this.fittedRequest(system, true);
      try {
        return await this.stream(request, this.host.emit);
      } catch (again) {
        await this.retryAfter(again, request, true);
        throw again;
      }
    }
  }

  /** What the plugin that manages the context is told of a request, and what a compaction needs of it. */
  private at(request: ModelRequest): PointRequest {
    return { provider: this.resolved.provider, ref: this.resolved.ref, request, signal: this.signal };
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
  protected override partial(text: string): void {
    super.partial(text);
    if (text.trim()) this.session.messages.push({ role: "assistant", content: text });
  }

  /** Usage of a turn (counted in the run's already): the transcript's record, the session's total, the event. */
  private noteUsage(u: ModelUsage): void {
    this.control.transcript?.usage(u);
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
}
