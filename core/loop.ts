/**
 * The agent loop: send the conversation to the model, run the tool calls it asks for through the
 * gate, feed the results back, until the model stops calling tools (or the turn limit, a failure or
 * the user stops it). Loaded lazily by `host.run`.
 *
 * Context: the loop builds the base request (system prompt, `AGENTS.md`, every registered tool) and
 * hands it to the `beforeModelRequest` waterfall, where plugins add or rewrite (skills, compaction...).
 * Retries of failed model requests happen here and only here.
 */
import { AgentError, errorMessage } from "./errors.js";
import type { StopReason } from "./events.js";
import { debugChain, sleep, toModelError, withNote } from "./loop-util.js";
import { contextBlocks, type SessionLifecycle } from "./session-lifecycle.js";
import {
  ModelError,
  parseModelRef,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelStopReason,
  type ModelToolCall,
  type ModelUsage,
} from "./model.js";
import type { RawHooks } from "./hooks.js";
import type { AgentSession, Host, PluginHost, RunOptions, RunResult } from "./host-types.js";
import type { JsonSchema, ToolResult } from "./types.js";
import { DEFAULT_MAX_TURNS, resolveModel, systemPrompt } from "./run-setup.js";

const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
const DEFAULT_RETRY = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };
/** A server asking us to wait longer than this is not waited for: the error is reported instead. */
const MAX_RETRY_AFTER_MS = 60_000;
/** `stop` handlers may make a run go on this many times in a row (Claude Code's bound); then it ends. */
export const MAX_STOP_CONTINUATIONS = 8;
/** How long a run's first request waits for tool sources without cached tools (config `tools.loadWaitMs`). */
export const DEFAULT_LOAD_WAIT_MS = 3000;

/** What the host keeps for runs: the conversation's lifecycle, and the run in progress (for `ctx.stopRun`). */
export interface RunControl {
  lifecycle: SessionLifecycle;
  current?: { requestStop(plugin: string, reason: string): void };
}

type MutableSession = { -readonly [K in keyof AgentSession]: AgentSession[K] };

export async function runAgent(host: Host, hooks: RawHooks, control: RunControl, prompt: string, options: RunOptions = {}): Promise<RunResult> {
  const session = host.session as MutableSession;
  if (session.running) throw new AgentError("E_USAGE", "A run is already in progress in this session; wait for it or cancel it first.");
  const { ref, provider, model } = resolveModel(host, options.model ?? session.model);
  const maxTurns = options.maxTurns ?? host.config.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new AgentError("E_USAGE", `maxTurns must be a positive integer; got ${maxTurns}.`);

  session.running = true;
  const run = new Run(host, hooks, control.lifecycle, session, { ref, provider, model, maxTurns, options });
  control.current = run;
  try {
    return await run.execute(prompt);
  } finally {
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

interface TurnOutput {
  text: string;
  toolCalls: ModelToolCall[];
  stop: ModelStopReason;
  usage?: ModelUsage;
}

/** Thrown inside a run when the user cancelled; never escapes `execute`. */
class Aborted extends Error {
  /** Text the model had streamed when the user cancelled. */
  constructor(readonly partial = "") {
    super("aborted");
  }
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

  constructor(
    private readonly host: Host,
    private readonly hooks: RawHooks,
    private readonly lifecycle: SessionLifecycle,
    private readonly session: MutableSession,
    private readonly setup: RunSetup,
  ) {
    this.signal = setup.options.signal ?? new AbortController().signal;
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
        const base = await systemPrompt(host, setup.options.systemPrompt);
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
      const base: ModelRequest = {
        model: setup.model,
        system: loading.length ? `${system}\n\nTools still loading (they join a later turn): ${loading.join(", ")}.` : system,
        messages: [...session.messages],
        tools: host.tools.list().map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as JsonSchema })),
      };
      const request = this.hooks.beforeModelRequest.isUsed() ? await this.hooks.beforeModelRequest.promise(base) : base;

      let turn: TurnOutput;
      try {
        turn = await this.streamWithRetries(request);
      } catch (err) {
        if (err instanceof Aborted) this.keepPartialText(err.partial);
        throw err;
      }
      this.addUsage(turn.usage);
      this.lastText = turn.text;
      host.emit({ type: "assistant_message", text: turn.text, toolCalls: turn.toolCalls.map(({ id, name, input }) => ({ id, name, input })) });
      session.messages.push({ role: "assistant", content: turn.text, ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}) });

      if (turn.toolCalls.length === 0) {
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
        continue;
      }

      // Results always go into the conversation (even when cancelled) so it stays valid for the next prompt.
      session.messages.push(...(await this.runTools(turn.toolCalls)));
      if (this.signal.aborted) throw new Aborted();
      if (this.turns >= setup.maxTurns) return "max_turns";
    }
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

  /** One model turn, retried with backoff on retryable failures (429, 5xx, network, broken or silent stream). */
  private async streamWithRetries(request: ModelRequest): Promise<TurnOutput> {
    const retry = { ...DEFAULT_RETRY, ...this.setup.options.retry };
    for (let attempt = 1; ; attempt++) {
      let err: ModelError;
      try {
        return await this.streamOnce(request);
      } catch (e) {
        if (e instanceof Aborted) throw e;
        err = toModelError(e, this.setup.provider.name);
      }
      if (!err.retryable || attempt >= retry.maxAttempts) {
        throw attempt > 1 ? withNote(err, `gave up after ${attempt} attempts`) : err;
      }
      if (err.retryAfterMs !== undefined && err.retryAfterMs > MAX_RETRY_AFTER_MS) {
        throw withNote(err, `the server asked to wait ${Math.ceil(err.retryAfterMs / 1000)} s; not retrying`);
      }
      const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
      const delayMs = Math.round(err.retryAfterMs ?? backoff);
      this.host.emit({ type: "retry", attempt, maxAttempts: retry.maxAttempts, delayMs, code: err.code, message: err.message });
      if (!(await sleep(delayMs, this.signal))) throw new Aborted();
    }
  }

  private async streamOnce(request: ModelRequest): Promise<TurnOutput> {
    const idleMs = this.setup.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const idle = new AbortController();
    const signal = AbortSignal.any([this.signal, idle.signal]);
    // One timer, re-armed lazily: cheaper than resetting a timeout on every delta.
    let lastEvent = performance.now();
    let timer: NodeJS.Timeout;
    const arm = (ms: number) => {
      timer = setTimeout(() => {
        const silent = performance.now() - lastEvent;
        if (silent >= idleMs) idle.abort();
        else arm(idleMs - silent);
      }, ms);
    };
    arm(idleMs);

    const out: TurnOutput = { text: "", toolCalls: [], stop: "end_turn" };
    let stopped = false;
    try {
      for await (const ev of this.setup.provider.stream(request, { signal })) {
        lastEvent = performance.now();
        if (signal.aborted) break;
        switch (ev.type) {
          case "text_delta":
            if (!ev.text) break;
            out.text += ev.text;
            this.host.emit({ type: "text_delta", text: ev.text });
            break;
          case "tool_call":
            out.toolCalls.push(ev.call);
            break;
          case "usage":
            out.usage = ev.usage;
            break;
          case "stop":
            out.stop = ev.reason;
            stopped = true;
            break;
        }
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    } finally {
      clearTimeout(timer!);
    }
    // SDKs may end a stream quietly when its signal fires: check why it ended.
    if (this.signal.aborted) throw new Aborted(out.text);
    if (idle.signal.aborted) {
      throw new ModelError("E_MODEL_TIMEOUT", `${this.setup.provider.name} sent nothing for ${Math.round(idleMs / 1000)} s; the request was dropped.`, {
        provider: this.setup.provider.name,
      });
    }
    if (!stopped) out.stop = out.toolCalls.length ? "tool_use" : "end_turn";
    return out;
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
