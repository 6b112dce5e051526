/**
 * The parts of a call the gate keeps while it runs: how the tool is stopped (and who hears of it), the
 * shared accessors of its context, and the record `beforeToolCall` / `afterToolCall` handlers run on.
 */
import { errorMessage } from "../../kit/errors.js";
import type { AgentEvent } from "../hooks/events.js";
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import type { ToolCallState } from "../hooks/hook-types.js";
import type { ToolCallInfo } from "../plugin-types.js";
import type { ToolEntry } from "../registry/registry.js";
import type { CallAgentInfo } from "../types.js";

/**
 * A call while its tool runs: how it is stopped, and who hears of it. It is also the listener for the
 * caller's signal (handleEvent) and the timer's argument, so a call needs no closures for either. The
 * tool's AbortController is made only if the tool asks for `ctx.signal`: most calls finish without
 * one, and on Node 20 a signal with a listener costs about as much as the rest of the gate.
 */
export class RunningCall {
  aborted = false;
  timedOut = false;
  /** Settles the call's run promise at once when it is stopped. */
  reject: ((reason: unknown) => void) | undefined;
  private reason: unknown;
  private controller: AbortController | undefined;
  private listeners: Array<(reason: unknown) => void> | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
    private readonly deps: { emit(event: AgentEvent): void; traceContext?(callId: string): Readonly<Record<string, string>> | undefined },
    private readonly name: string,
  ) {}

  /** The call's trace context, from the plugin that traces calls (`PluginContext.traceCalls`), if any. */
  traceContext(callId: string): Readonly<Record<string, string>> | undefined {
    return this.deps.traceContext?.(callId);
  }

  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.aborted) {
      this.notify(listener);
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const i = this.listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.listeners!.splice(i, 1);
    };
  }

  /** Fire the tool's signal and listeners, and settle the call (a tool that ignores them cannot hold the caller). */
  stop(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) this.notify(l);
    this.reject?.(reason);
  }

  expire(): void {
    if (this.aborted) return;
    this.timedOut = true;
    this.stop(new Error(`timed out after ${this.timeoutMs} ms`));
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.stop(this.outer?.reason ?? new Error("aborted"));
  }

  private notify(listener: (reason: unknown) => void): void {
    try {
      listener(this.reason);
    } catch (err) {
      this.deps.emit({ type: "notice", level: "warn", source: this.name, message: `an onAbort listener threw: ${errorMessage(err)}` });
    }
  }
}

function noop(): void {}

export const RUN = Symbol("agent-host.call");
/**
 * `signal` and `aborted` of a call context: own properties (so spreading a context still carries
 * them) whose getters are shared by every context. Getters written in the object literal would be
 * new closures per call, and V8 then gives every context a hidden class of its own: a Map allocated
 * in old space that keeps the call's young objects alive through scavenges. That cost the gate
 * about 3 µs per call, mostly in garbage collection.
 */
export const CONTEXT_ACCESSORS: PropertyDescriptorMap = {
  signal: {
    get(this: { [RUN]: RunningCall }) {
      return this[RUN].signal();
    },
    enumerable: true,
  },
  aborted: {
    get(this: { [RUN]: RunningCall }) {
      return this[RUN].aborted;
    },
    enumerable: true,
  },
  traceContext: {
    get(this: { [RUN]: RunningCall; callId: string }) {
      return this[RUN].traceContext(this.callId);
    },
    enumerable: true,
  },
};

export function expireCall(run: RunningCall): void {
  run.expire();
}

/** The gate's record of a call while `beforeToolCall` / `afterToolCall` handlers run on it. */
export class CallState implements ToolCallState {
  rewrittenBy: string | undefined;
  private frozen: ToolCallInfo | undefined;

  constructor(
    private readonly tool: ToolEntry,
    public input: unknown,
    private readonly callId: string,
    private readonly sessionId: string,
    private readonly agent?: CallAgentInfo,
  ) {}

  /** What a handler is handed: a frozen copy, rebuilt after a rewrite. */
  view(): ToolCallInfo {
    const base = { tool: this.tool.view, input: freezeCopy(this.input) as never, callId: this.callId, sessionId: this.sessionId };
    return (this.frozen ??= Object.freeze(this.agent ? { ...base, agent: this.agent } : base));
  }

  rewrite(plugin: string, input: unknown): void {
    this.input = plainCopy(input);
    this.rewrittenBy = plugin;
    this.frozen = undefined;
  }

  /** The input the gate validated after a rewrite (what afterToolCall handlers see). */
  settle(input: unknown): void {
    this.input = input;
    this.frozen = undefined;
  }
}

