/**
 * How plugins meet the hooks (Rollup's plugin driver in spirit). A plugin gets a tap-only view of the
 * raw table: every tap is named after the plugin and staged by its `enforce`; every handler is wrapped
 * so an error or a time-out is reported with plugin and hook name and never takes the host down; and
 * every handler is handed copies (frozen where a change would mean nothing), so the only way to change
 * what happens is to return a value the host checks.
 */
import { errorMessage } from "./errors.js";
import type { HookName, HookTable, RawHooks, TapOptions } from "./hooks.js";
import { freezeCopy, plainCopy } from "./freeze.js";
import { fromPluginConfigView, pluginConfigView } from "./host-view.js";
import type { BeforeToolCallDecision, Plugin } from "./plugin-types.js";

const SCOPE = Symbol.for("agent-host.scope");
type Scopable<T> = T & { [SCOPE](plugin: string): T };

/** An object passed to a hook whose plugin handlers each receive `forPlugin(<their name>)` instead. */
export function withPluginScope<T extends object>(hostScope: T, forPlugin: (plugin: string) => T): Scopable<T> {
  return Object.assign(Object.create(hostScope) as T, { [SCOPE]: forPlugin }) as Scopable<T>;
}

/**
 * The argument `beforeToolCall` handlers run on: the gate's own record of the call. A handler sees
 * `view()` (a frozen copy); a rewrite replaces `input` for the handlers after it and for the gate.
 */
export interface ToolCallState {
  view(): unknown;
  rewrite(plugin: string, input: unknown): void;
}

/** A `beforeToolCall` decision, with who made it. */
export type AttributedDecision = { deny: string; plugin: string };

/**
 * The argument of a hook whose handlers' answers the host gathers (permission votes, prompt context,
 * stop requests): each handler is handed `view()`, and what it returns goes to `take`.
 */
export interface Collector<V> {
  /** What a handler is handed: a frozen copy (rebuilt after a rewrite; a promise while it is worked out). */
  view(): V | Promise<V>;
  /** A handler's return value: a problem (reported with plugin and hook) when it is not an answer this hook takes. */
  take(plugin: string, value: unknown): string | undefined;
  /** The handler threw, timed out or returned garbage: what the hook goes on with (a denial, a block, or nothing). */
  fail(plugin: string, message: string): void;
}

export interface DriverOptions {
  /** A plugin that failed in setup: its handlers no longer run. */
  isFailed(plugin: string): boolean;
  /** Report a handler that threw, timed out or returned something unusable. */
  onError(plugin: string, hook: HookName, message: string): void;
  /** How long a handler of this hook may take. */
  timeoutMs(hook: HookName): number;
  /** True once the `config` hook has run: tapping it then is a mistake worth an error. */
  configClosed(): boolean;
  /** Merge what a `config` handler returned; returns the next config. */
  mergeConfig(plugin: string, current: unknown, returned: unknown): unknown;
  /** Errors that are not the plugin's to absorb (a `ConfigError` naming the user's file): they propagate. */
  rethrow?(err: unknown, hook: HookName): boolean;
}

class HandlerTimeout extends Error {
  constructor(ms: number) {
    super(`did not settle within ${ms} ms`);
  }
}

/** Settle with the handler's value, or reject once `ms` passed. */
function bounded<T>(value: T | Promise<T>, ms: number): T | Promise<T> {
  if (!value || typeof (value as Promise<T>).then !== "function") return value;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new HandlerTimeout(ms)), ms);
    (value as Promise<T>).then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

type Handler = (...args: any[]) => unknown;

/**
 * What a handler is handed and what its return value becomes, per hook. `fail` is what the hook goes
 * on with when the handler throws, times out or returns something unusable.
 */
interface Adapter {
  call(fn: Handler, args: unknown[], plugin: string, opts: DriverOptions): unknown;
  fail(args: unknown[], plugin: string, message: string): unknown;
}

const passThrough: Adapter = { call: (fn, args) => fn(...args), fail: () => undefined };

/** Hooks whose handlers answer through a `Collector`. */
function collecting(hook: HookName): Adapter {
  return {
    call: (fn, [state], plugin, opts) =>
      then(then((state as Collector<unknown>).view(), fn), (out) => {
        if (out === undefined || out === null) return undefined;
        const problem = (state as Collector<unknown>).take(plugin, out);
        if (problem) opts.onError(plugin, hook, problem);
        return undefined;
      }),
    fail: ([state], plugin, message) => void (state as Collector<unknown>).fail(plugin, message),
  };
}

const ADAPTERS: Partial<Record<HookName, Adapter>> = {
  config: {
    // The handler gets a frozen copy and returns config to merge; the waterfall goes on with the merge.
    // It sees other plugins' entries by name only (their options may hold tokens).
    call: (fn, [config, env], plugin, opts) => {
      const seen = pluginConfigView(freezeCopy(config));
      return then(fn(seen, env), (out) => (out === undefined || out === null ? undefined : opts.mergeConfig(plugin, config, fromPluginConfigView(out, seen))));
    },
    fail: () => undefined,
  },
  beforeModelRequest: {
    // Its own copy: change it in place or return a new request (which must still look like one). A
    // request is plain data, so plainCopy does (a seventh of structuredClone's time: hundreds of
    // MCP tool schemas go through every handler of every turn).
    call: (fn, [request], plugin, opts) => {
      const copy = plainCopy(request);
      return then(fn(copy), (out) => {
        const next = out ?? copy;
        if (isModelRequest(next)) return next;
        opts.onError(plugin, "beforeModelRequest", `returned ${describeValue(out)} instead of a request ({ model, system, messages, tools }); it was ignored`);
        return undefined;
      });
    },
    fail: () => undefined,
  },
  beforeToolCall: {
    call: (fn, [state], plugin) =>
      then(fn((state as ToolCallState).view()), (out) => {
        if (out === undefined || out === null) return undefined;
        const d = out as Partial<BeforeToolCallDecision & { deny: unknown; input: unknown }>;
        if (typeof d === "object" && typeof d.deny === "string") return { deny: d.deny, plugin } satisfies AttributedDecision;
        if (typeof d === "object" && "input" in d && !("deny" in d)) {
          (state as ToolCallState).rewrite(plugin, d.input);
          return undefined;
        }
        // Neither a denial nor a rewrite: fail closed.
        return { deny: `a beforeToolCall handler of plugin ${plugin} returned ${describeValue(out)} instead of { deny } or { input }`, plugin } satisfies AttributedDecision;
      }),
    fail: (_args, plugin, message) => ({ deny: `plugin ${plugin} failed in beforeToolCall (${message}); the call was blocked to be safe`, plugin }) satisfies AttributedDecision,
  },
  afterToolCall: {
    call: (fn, [result, state], plugin, opts) =>
      then(fn(freezeCopy(result), (state as ToolCallState).view()), (out) => {
        if (out === undefined || out === null) return undefined;
        if (isToolResult(out)) return out;
        opts.onError(plugin, "afterToolCall", `returned ${describeValue(out)} instead of a tool result; it was ignored`);
        return undefined;
      }),
    fail: () => undefined,
  },
  sessionStart: collecting("sessionStart"),
  userPromptSubmit: collecting("userPromptSubmit"),
  permission: collecting("permission"),
  permissionRequest: collecting("permissionRequest"),
  stop: collecting("stop"),
  preCompact: collecting("preCompact"),
  event: {
    call: (fn, [event]) => {
      fn(event);
      return undefined;
    },
    fail: () => undefined,
  },
};

function then<T>(value: unknown, f: (v: unknown) => T): T | Promise<T> {
  if (value && typeof (value as Promise<unknown>).then === "function") return (value as Promise<unknown>).then(f);
  return f(value);
}

function wrapHandler(plugin: string, hook: HookName, fn: Handler, opts: DriverOptions): Handler {
  const adapter = ADAPTERS[hook] ?? passThrough;
  const fail = (args: unknown[], err: unknown) => {
    if (opts.rethrow?.(err, hook)) throw err;
    const message = err instanceof HandlerTimeout ? err.message : errorMessage(err);
    opts.onError(plugin, hook, message);
    return adapter.fail(args, plugin, message);
  };
  return (...args: unknown[]) => {
    if (opts.isFailed(plugin)) return undefined;
    const first = args[0] as Partial<Scopable<object>> | undefined;
    if (first && typeof first === "object" && typeof first[SCOPE] === "function") args = [first[SCOPE](plugin), ...args.slice(1)];
    try {
      const out = adapter.call(fn, args, plugin, opts);
      if (hook === "event" || !out || typeof (out as Promise<unknown>).then !== "function") return out;
      return (bounded(out, opts.timeoutMs(hook)) as Promise<unknown>).then(undefined, (err: unknown) => fail(args, err));
    } catch (err) {
      return fail(args, err);
    }
  };
}

/** An event tap's `types`, as a set; undefined for every type. */
function eventTypes(options: string | TapOptions): ReadonlySet<string> | undefined {
  const types = typeof options === "object" ? (options as { types?: unknown }).types : undefined;
  if (types === undefined) return undefined;
  if (!Array.isArray(types) || !types.every((t) => typeof t === "string")) throw new TypeError("event tap types must be an array of event type names");
  return new Set(types as string[]);
}

function labelOf(options: string | TapOptions | undefined): void {
  if (options !== undefined && typeof options !== "string" && (typeof options !== "object" || options === null)) {
    throw new TypeError("tap options must be a string or { name }");
  }
}

/**
 * The hook table as `plugin` sees it: `tap`, `tapPromise` and `tapAsync` (only `tap` for `event`), and
 * nothing else of tapable: no `taps`, `intercept`, `call` or `promise`.
 */
export function pluginHookView(hooks: RawHooks, plugin: string, stage: number, opts: DriverOptions): HookTable {
  const view: Record<string, unknown> = {};
  for (const [hookName, hook] of Object.entries(hooks) as [HookName, RawHooks[HookName]][]) {
    const tapWith = (kind: "tap" | "tapPromise" | "tapAsync") => (options: string | TapOptions, fn: Handler) => {
      labelOf(options);
      if (typeof fn !== "function") throw new TypeError(`${hookName}.${kind} needs a handler function`);
      if (hookName === "config" && opts.configClosed()) {
        throw new Error(`plugin ${plugin} tapped the config hook too late: config is final before any setup runs. Declare a config(config) handler on the plugin object instead.`);
      }
      const handler: Handler =
        kind === "tapAsync"
          ? (...a: unknown[]) => new Promise((resolve, reject) => fn(...a, (err: unknown, v: unknown) => (err ? reject(err) : resolve(v))))
          : fn;
      const wrapped = wrapHandler(plugin, hookName, handler, opts);
      const tapOptions = { name: plugin, stage };
      if (hookName === "event") {
        const types = eventTypes(options);
        // The tap keeps its types (tapable keeps extra tap options): the host asks them whether an event is heard.
        const only = types ? (e: unknown) => void (types.has((e as { type: string }).type) && wrapped(e)) : (wrapped as (e: unknown) => void);
        (hook as RawHooks["event"]).tap({ ...tapOptions, ...(types ? { types } : {}) } as never, only);
      }
      else (hook as unknown as { tapPromise: (o: object, f: Handler) => void }).tapPromise(tapOptions, async (...a: unknown[]) => wrapped(...a));
    };
    view[hookName] = Object.freeze(hookName === "event" ? { tap: tapWith("tap") } : { tap: tapWith("tap"), tapPromise: tapWith("tapPromise"), tapAsync: tapWith("tapAsync") });
  }
  return Object.freeze(view) as unknown as HookTable;
}

/** Tap a plain-object plugin's declarations and handlers (through its view, so they are wrapped too). */
export function tapPluginObject(plugin: Plugin<any>, hooks: HookTable, phase: "config" | "setup"): void {
  const name = plugin.name;
  const h = plugin;
  if (phase === "config") {
    if (typeof h.config === "function") hooks.config.tap(name, (c, env) => h.config!(c, env));
    return;
  }
  if (plugin.tools?.length) hooks.registerTools.tap(name, (r) => void plugin.tools!.forEach((t) => r.add(t)));
  if (plugin.commands?.length) hooks.registerCommands.tap(name, (r) => void plugin.commands!.forEach((c) => r.add(c)));
  if (plugin.skills?.length) hooks.registerSkills.tap(name, (r) => void plugin.skills!.forEach((s) => r.add(s)));
  if (plugin.providers?.length) hooks.registerProviders.tap(name, (r) => void plugin.providers!.forEach((p) => r.add(p)));
  if (typeof h.registerProviders === "function") hooks.registerProviders.tap(name, (r) => h.registerProviders!(r));
  if (typeof h.registerTools === "function") hooks.registerTools.tap(name, (r) => h.registerTools!(r));
  if (typeof h.registerCommands === "function") hooks.registerCommands.tap(name, (r) => h.registerCommands!(r));
  if (typeof h.registerSkills === "function") hooks.registerSkills.tap(name, (r) => h.registerSkills!(r));
  if (typeof h.sessionStart === "function") hooks.sessionStart.tap(name, (s) => h.sessionStart!(s));
  if (typeof h.userPromptSubmit === "function") hooks.userPromptSubmit.tap(name, (p) => h.userPromptSubmit!(p));
  if (typeof h.beforeModelRequest === "function") hooks.beforeModelRequest.tap(name, (req) => h.beforeModelRequest!(req));
  if (typeof h.permission === "function") hooks.permission.tap(name, (c) => h.permission!(c));
  if (typeof h.permissionRequest === "function") hooks.permissionRequest.tap(name, (r) => h.permissionRequest!(r));
  if (typeof h.beforeToolCall === "function") hooks.beforeToolCall.tap(name, (call) => h.beforeToolCall!(call));
  if (typeof h.afterToolCall === "function") hooks.afterToolCall.tap(name, (res, call) => h.afterToolCall!(res, call));
  if (typeof h.stop === "function") hooks.stop.tap(name, (s) => h.stop!(s));
  if (typeof h.preCompact === "function") hooks.preCompact.tap(name, (c) => h.preCompact!(c));
  if (typeof h.event === "function") hooks.event.tap(name, (e) => h.event!(e));
  if (typeof h.sessionEnd === "function") hooks.sessionEnd.tap(name, (s) => h.sessionEnd!(s));
  if (typeof h.shutdown === "function") hooks.shutdown.tap(name, () => h.shutdown!());
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
