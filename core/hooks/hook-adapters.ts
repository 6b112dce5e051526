/**
 * Per hook, what a plugin's handler is handed and what its return value becomes (the host's args in,
 * the hook's step out), and what the hook goes on with when the handler fails. The record must name
 * every hook of the table (hooks.ts): a hook without an adapter does not compile.
 */
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import type { AttributedDecision, BeforeToolCallDecision, Collector, FailingCollector } from "./hook-types.js";
import { HOOKS, type HandedArgs, type HookName, type HostArgs } from "./hooks.js";
import { fromPluginConfigView, pluginConfigView } from "../host/host-view.js";
import { perKind, registerHookOf, type RegisterHookName } from "../registry/kinds.js";

/** What an adapter may ask of the driver. */
export interface AdapterContext {
  /** Report a handler's return value the hook cannot use. */
  onError(plugin: string, hook: HookName, message: string): void;
  /** Merge what a `config` handler returned; returns the next config. */
  mergeConfig(plugin: string, current: unknown, returned: unknown): unknown;
}

/** A hook's adapter: `call` runs one handler on the host's arguments; `fail` is what a failed handler leaves. */
export interface Adapter<Host extends unknown[], Handed extends unknown[]> {
  call(fn: (...args: Handed) => unknown, args: Host, plugin: string, ctx: AdapterContext): unknown;
  fail(args: Host, plugin: string, message: string): unknown;
}

export type Adapters = { readonly [K in HookName]: Adapter<HostArgs<K>, HandedArgs<K>> };

/** The handler gets what the host passes, and its return value goes on as it is. */
function passThrough<A extends unknown[]>(): Adapter<A, A> {
  return { call: (fn, args) => fn(...args), fail: () => undefined };
}

/**
 * Hooks whose handlers answer through a collector: a handler is handed `view()`, its answer goes to
 * `take`. A failure counts only where the hook's policy says so (deny, block): the collector records it.
 */
function collecting<V>(hook: HookName): Adapter<[Collector<V> | FailingCollector<V>], [V]> {
  const counts = HOOKS[hook].failure !== "skip";
  return {
    call: (fn, [state], plugin, ctx) =>
      then(then(state.view(), (v) => fn(v as V)), (out) => {
        if (out === undefined || out === null) return undefined;
        const problem = state.take(plugin, out);
        if (problem) ctx.onError(plugin, hook, problem);
        return undefined;
      }),
    fail: ([state], plugin, message) => {
      if (counts && "fail" in state) state.fail(plugin, message);
      return undefined;
    },
  };
}

/** The collector of a hook whose first answer decides (`sessionLoad`, `compact`, `modelError`, `transcript`'s `{ file }`). */
export class FirstAnswer<V, A> implements Collector<V> {
  answer: A | undefined;
  constructor(
    private readonly info: V,
    private readonly expected: string,
    private readonly accepts: (out: unknown) => boolean,
  ) {}
  view(): V {
    return this.info;
  }
  take(_plugin: string, out: unknown): string | undefined {
    if (!this.accepts(out)) return `returned ${describeValue(out)} instead of ${this.expected}; ignored`;
    this.answer ??= out as A;
    return undefined;
  }
}

export const ADAPTERS: Adapters = {
  config: {
    // The handler gets a frozen copy and returns config to merge; the waterfall goes on with the merge.
    // It sees other plugins' entries by name only (their options may hold tokens).
    call: (fn, [config, env], plugin, ctx) => {
      const seen = pluginConfigView(freezeCopy(config));
      return then(fn(seen, env), (out) => (out === undefined || out === null ? undefined : ctx.mergeConfig(plugin, config, fromPluginConfigView(out, seen))));
    },
    fail: () => undefined,
  },
  // The register hooks (one per kind, kinds.ts) hand each handler the plugin's registrar as it is.
  ...perKind<Pick<Adapters, RegisterHookName>>(passThrough, registerHookOf),
  sessionStart: collecting("sessionStart"),
  sessionLoad: collecting("sessionLoad"),
  userPromptSubmit: collecting("userPromptSubmit"),
  systemPrompt: collecting("systemPrompt"),
  beforeModelRequest: {
    // Its own copy: change it in place or return a new request (which must still look like one). A
    // request is plain data, so plainCopy does (a seventh of structuredClone's time: hundreds of
    // MCP tool schemas go through every handler of every turn).
    call: (fn, [request], plugin, ctx) => {
      const copy = plainCopy(request);
      return then(fn(copy), (out) => {
        const next = out ?? copy;
        if (isModelRequest(next)) return next;
        ctx.onError(plugin, "beforeModelRequest", `returned ${describeValue(out)} instead of a request ({ model, system, messages, tools }); it was ignored`);
        return undefined;
      });
    },
    fail: () => undefined,
  },
  fitContext: passThrough(),
  modelError: collecting("modelError"),
  permission: collecting("permission"),
  permissionRequest: collecting("permissionRequest"),
  beforeToolCall: {
    call: (fn, [state], plugin) =>
      then(fn(state.view()), (out) => {
        if (out === undefined || out === null) return undefined;
        const d = out as Partial<BeforeToolCallDecision & { deny: unknown; input: unknown }>;
        if (typeof d === "object" && typeof d.deny === "string") return { deny: d.deny, plugin } satisfies AttributedDecision;
        if (typeof d === "object" && "input" in d && !("deny" in d)) {
          state.rewrite(plugin, d.input);
          return undefined;
        }
        // Neither a denial nor a rewrite: fail closed.
        return { deny: `a beforeToolCall handler of plugin ${plugin} returned ${describeValue(out)} instead of { deny } or { input }`, plugin } satisfies AttributedDecision;
      }),
    fail: (_args, plugin, message) => ({ deny: `plugin ${plugin} failed in beforeToolCall (${message}); the call was blocked to be safe`, plugin }) satisfies AttributedDecision,
  },
  afterToolCall: {
    call: (fn, [result, state], plugin, ctx) =>
      then(fn(freezeCopy(result), state.view()), (out) => {
        if (out === undefined || out === null) return undefined;
        if (isToolResult(out)) return out;
        ctx.onError(plugin, "afterToolCall", `returned ${describeValue(out)} instead of a tool result; it was ignored`);
        return undefined;
      }),
    fail: () => undefined,
  },
  stop: collecting("stop"),
  compactAsked: passThrough(),
  preCompact: collecting("preCompact"),
  compact: collecting("compact"),
  transcript: collecting("transcript"),
  event: {
    call: (fn, [event]) => {
      fn(event);
      return undefined;
    },
    fail: () => undefined,
  },
  subagentStart: passThrough(),
  subagentStop: passThrough(),
  sessionEnd: passThrough(),
  shutdown: passThrough(),
};

function then<T>(value: unknown, f: (v: unknown) => T): T | Promise<T> {
  if (value && typeof (value as Promise<unknown>).then === "function") return (value as Promise<unknown>).then(f);
  return f(value);
}

function isModelRequest(v: unknown): boolean {
  const r = v as { model?: unknown; system?: unknown; messages?: unknown; tools?: unknown } | null;
  return typeof r === "object" && r !== null && typeof r.model === "string" && typeof r.system === "string" && Array.isArray(r.messages) && Array.isArray(r.tools);
}

function isToolResult(v: unknown): boolean {
  const r = v as { ok?: unknown; output?: unknown; outcome?: unknown } | null;
  return typeof r === "object" && r !== null && typeof r.ok === "boolean" && typeof r.output === "string" && typeof r.outcome === "string";
}

export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}
