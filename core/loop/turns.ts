/**
 * The turns of a run, the session's (loop.ts) and a subagent's (detached-run.ts) alike: ask the model,
 * run the tool calls it asks for through the gate, feed the results back, until the model stops calling
 * tools, the turn limit, a failure or a cancel. What differs between the two (the request, the events,
 * where the messages go, what a turn without tool calls leads to) is the subclass's.
 */
import { AgentError, errorMessage } from "../../kit/errors.js";
import type { StopReason } from "../hooks/events.js";
import type { PluginHost, RunOptions } from "../host-types.js";
import type { CallAgent, ToolResult } from "../types.js";
import { Aborted, streamWithRetries, type TurnOptions, type TurnOutput } from "./model-turn.js";
import type { ModelMessage, ModelProvider, ModelRequest, ModelToolCall } from "./model.js";
import { DEFAULT_MAX_TURNS, resolveModel } from "./run-setup.js";

export interface ResolvedRun {
  ref: string;
  provider: ModelProvider;
  model: string;
  maxTurns: number;
}

/** How long a run's first request waits for tool sources without cached tools (config `tools.loadWaitMs`). */
export const DEFAULT_LOAD_WAIT_MS = 3000;

type RunError = { code: string; message: string };

/** The run's model (its own, else the session's) and turn limit (its own, else config's, else 50); throws an `AgentError` a person can act on. */
export function resolveRun(host: PluginHost, options: { model?: string; maxTurns?: number }): ResolvedRun {
  const { ref, provider, model } = resolveModel(host, options.model ?? host.session.model);
  const maxTurns = options.maxTurns ?? host.config.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new AgentError("E_USAGE", `maxTurns must be a positive integer; got ${maxTurns}.`);
  return { ref, provider, model, maxTurns };
}

export abstract class Turns {
  private readonly started = performance.now();
  protected readonly signal: AbortSignal;
  protected turns = 0;
  protected toolCalls = 0;
  protected readonly usage = { inputTokens: 0, outputTokens: 0 };
  /** The text of the last assistant message. */
  protected text = "";
  /** Who the calls are made for, when not the session (a subagent). */
  protected agent: CallAgent | undefined;

  constructor(
    protected readonly host: PluginHost,
    protected readonly resolved: ResolvedRun,
    private readonly turnOptions: Pick<RunOptions, "signal" | "retry" | "idleTimeoutMs">,
    /** Why a call was not started after a cancel, for the model. */
    private readonly cancelled: string,
  ) {
    this.signal = turnOptions.signal ?? new AbortController().signal;
  }

  /** This turn's model request, streamed (`stream`). */
  protected abstract request(): Promise<TurnOutput>;
  /** Messages join the run's conversation. */
  protected abstract add(messages: ModelMessage[]): void;
  /** The model answered, `ms` after the request was sent (its usage and text are counted already). */
  protected abstract answered(turn: TurnOutput, ms: number): void;

  /** Before a turn: why the run ends instead (a plugin stopped it), if it does. */
  protected stopped(): StopReason | undefined {
    return undefined;
  }

  /** A turn without tool calls: how the run ends, or undefined when it goes on. */
  protected async ended(turn: TurnOutput): Promise<StopReason | undefined> {
    return turn.stop === "max_tokens" ? "max_tokens" : "end_turn";
  }

  /** The user cancelled while the model was answering: what it had streamed. */
  protected partial(text: string): void {
    if (text.trim()) this.text = text;
  }

  /** A turn's tool results joined the conversation. */
  protected committed(): void {}

  /** A tool call came back. */
  protected called(_call: ModelToolCall, _result: ToolResult): void {}

  /** A run that failed (not cancelled): the error for the result. */
  protected failed(_error: RunError, _err: unknown): void {}

  protected stream(request: ModelRequest, emit: TurnOptions["emit"]): Promise<TurnOutput> {
    const { retry, idleTimeoutMs } = this.turnOptions;
    return streamWithRetries(request, { provider: this.resolved.provider, signal: this.signal, emit, retry, idleTimeoutMs });
  }

  /** How `body` (which runs the turns) ended: a stop reason, and the error when it failed. */
  protected async settle(body: () => Promise<StopReason>): Promise<{ reason: StopReason; error?: RunError }> {
    try {
      return { reason: await body() };
    } catch (err) {
      if (err instanceof Aborted || this.signal.aborted) return { reason: "aborted" };
      const error = { code: (err as { code?: string }).code ?? "E_MODEL", message: errorMessage(err) };
      this.failed(error, err);
      return { reason: "error", error };
    }
  }

  /** The result's common fields (`ids` after the model, where they have always been). */
  protected outcome<I extends object>(reason: StopReason, ids: I) {
    const { text, turns, toolCalls } = this;
    return { reason, ok: reason === "end_turn", text, model: this.resolved.ref, ...ids, turns, toolCalls, usage: { ...this.usage }, durationMs: performance.now() - this.started };
  }

  protected async loop(): Promise<StopReason> {
    for (;;) {
      if (this.signal.aborted) throw new Aborted();
      const stopped = this.stopped();
      if (stopped) return stopped;
      this.turns++;
      const sent = performance.now();
      let turn: TurnOutput;
      try {
        turn = await this.request();
      } catch (err) {
        if (err instanceof Aborted) this.partial(err.partial);
        throw err;
      }
      this.usage.inputTokens += turn.usage?.inputTokens ?? 0;
      this.usage.outputTokens += turn.usage?.outputTokens ?? 0;
      this.text = turn.text;
      this.answered(turn, performance.now() - sent);
      this.add([{ role: "assistant", content: turn.text, ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}) }]);

      if (turn.toolCalls.length === 0) {
        const end = await this.ended(turn);
        if (end) return end;
        continue;
      }
      // Results always go into the conversation (even when cancelled) so it stays valid for the next prompt.
      this.add(await this.runTools(turn.toolCalls));
      this.committed();
      if (this.signal.aborted) throw new Aborted();
      if (this.turns >= this.resolved.maxTurns) return "max_turns";
    }
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
    const message = (content: string, isError: boolean): ModelMessage => ({ role: "tool", toolCallId: call.id, name: call.name, content, ...(isError ? { isError: true } : {}) });
    // After a cancel, calls not started yet are not started at all (not even asked about).
    if (this.signal.aborted) return message(`Not run: ${this.cancelled} before ${call.name} started.`, true);
    this.toolCalls++;
    const result = await this.host.tools.call(call.name, call.input, { signal: this.signal, callId: call.id, ...(this.agent ? { agent: this.agent } : {}) });
    this.called(call, result);
    if (call.inputError && result.outcome === "invalid") {
      return message(`The arguments for ${call.name} were not valid JSON (${call.inputError}). Call the tool again with a JSON object that matches its input schema.`, true);
    }
    return message(result.output === "" && result.ok ? "(no output)" : result.output, !result.ok);
  }
}
