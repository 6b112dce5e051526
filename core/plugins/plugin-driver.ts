/**
 * How plugins meet the hooks (Rollup's plugin driver in spirit). A plugin gets a tap-only view of the
 * raw table: every tap is named after the plugin and staged by its `enforce`; every handler is wrapped
 * so an error or a time-out is reported with plugin and hook name and never takes the host down; and
 * every handler is handed copies (frozen where a change would mean nothing), so the only way to change
 * what happens is to return a value the host checks.
 */
import { errorMessage } from "../../kit/errors.js";
import { withTimeout } from "../../kit/timeout.js";
import { eventTypes, tapOptionsOf, type RawTapOptions } from "../../kit/tap-options.js";
import { ADAPTERS, type Adapter, type AdapterContext } from "../hooks/hook-adapters.js";
import { HOOK_NAMES, HOOKS, type HookName, type HookTable, type RawHooks } from "../hooks/hooks.js";
import { KIND_NAMES, pluralOf, registerHookOf, type RegisterHookName } from "../registry/kinds.js";
import type { Plugin } from "../plugin-types.js";
import type { SyncTappable, Tappable, TapOptions } from "../hooks/tap-types.js";

const SCOPE = Symbol.for("agent-host.scope");
type Scopable<T> = T & { [SCOPE](plugin: string): T };

/** An object passed to a hook whose plugin handlers each receive `forPlugin(<their name>)` instead. */
export function withPluginScope<T extends object>(hostScope: T, forPlugin: (plugin: string) => T): Scopable<T> {
  return Object.assign(Object.create(hostScope) as T, { [SCOPE]: forPlugin }) as Scopable<T>;
}

export interface DriverOptions extends AdapterContext {
  /** A plugin that failed in setup: its handlers no longer run. */
  isFailed(plugin: string): boolean;
  /** How long a handler of this hook may take. */
  timeoutMs(hook: HookName): number;
  /** True once the `config` hook has run: tapping it then is a mistake worth an error. */
  configClosed(): boolean;
  /** Errors that are not the plugin's to absorb (a `ConfigError` naming the user's file): they propagate. */
  rethrow?(err: unknown, hook: HookName): boolean;
}

class HandlerTimeout extends Error {
  constructor(ms: number) {
    super(`did not settle within ${ms} ms`);
  }
}

type Handler = (...args: any[]) => unknown;

function wrapHandler(plugin: string, hook: HookName, fn: Handler, opts: DriverOptions): Handler {
  // Every adapter, seen with the host's arguments as the driver holds them (an untyped list).
  const adapter: Adapter<unknown[], unknown[]> = ADAPTERS[hook];
  const sync = HOOKS[hook].kind === "sync";
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
      if (sync || !out || typeof (out as Promise<unknown>).then !== "function") return out;
      const ms = opts.timeoutMs(hook);
      // Settles with the handler's value, or rejects once `ms` passed (a model-bound hook is not bounded).
      const bounded = ms === Infinity ? (out as Promise<unknown>) : withTimeout(out, ms, () => new HandlerTimeout(ms));
      return bounded.then(undefined, (err: unknown) => fail(args, err));
    } catch (err) {
      return fail(args, err);
    }
  };
}

/**
 * What the driver needs of a raw hook, whatever its types: tapable's tap methods (no `tapPromise` on a
 * sync hook). tapable keeps every option it is given: `before` may be a list, an event tap keeps `types`.
 */
interface RawTaps {
  tap(options: { name: string }, fn: Handler): void;
  tapPromise?(options: { name: string }, fn: Handler): void;
}

type TapView = Tappable<any[], unknown> | SyncTappable<any[]>;

/** One hook as `plugin` sees it: its tap methods, each wrapping the handler (see wrapHandler). */
function tapView(hookName: HookName, raw: RawTaps, plugin: string, stage: number, opts: DriverOptions): TapView {
  const sync = HOOKS[hookName].kind === "sync";
  const tapWith = (kind: "tap" | "tapPromise" | "tapAsync") => (options: string | TapOptions, fn: Handler) => {
    const tapOptions = tapOptionsOf(options, plugin, stage);
    if (typeof fn !== "function") throw new TypeError(`${hookName}.${kind} needs a handler function`);
    if (hookName === "config" && opts.configClosed()) {
      throw new Error(`plugin ${plugin} tapped the config hook too late: config is final before any setup runs. Declare a config(config) handler on the plugin object instead.`);
    }
    const handler: Handler =
      kind === "tapAsync"
        ? (...a: unknown[]) => new Promise((resolve, reject) => fn(...a, (err: unknown, v: unknown) => (err ? reject(err) : resolve(v))))
        : fn;
    const wrapped = wrapHandler(plugin, hookName, handler, opts);
    if (sync) {
      const types = eventTypes(options);
      // The tap keeps its types (tapable keeps extra tap options): the host asks them whether an event is heard.
      const only = types ? (e: unknown) => void (types.has((e as { type: string }).type) && wrapped(e)) : wrapped;
      const withTypes: RawTapOptions & { types?: ReadonlySet<string> } = { ...tapOptions, ...(types ? { types } : {}) };
      raw.tap(withTypes, only);
    } else raw.tapPromise!(tapOptions, async (...a: unknown[]) => wrapped(...a));
  };
  return Object.freeze(sync ? { tap: tapWith("tap") } : { tap: tapWith("tap"), tapPromise: tapWith("tapPromise"), tapAsync: tapWith("tapAsync") });
}

/**
 * The hook table as `plugin` sees it: `tap`, `tapPromise` and `tapAsync` (only `tap` for a sync hook), and
 * nothing else of tapable: no `taps`, `intercept`, `call` or `promise`.
 */
export function pluginHookView(hooks: RawHooks, plugin: string, stage: number, opts: DriverOptions): HookTable {
  const raw: Readonly<Record<HookName, RawTaps>> = hooks;
  const view = Object.fromEntries(HOOK_NAMES.map((name) => [name, tapView(name, raw[name], plugin, stage, opts)]));
  // Object.fromEntries forgets which key holds which view; each was made for its hook's kind.
  return Object.freeze(view) as HookTable;
}

/** Each kind's array of the plugin object (`tools: [...]`, …), added in that kind's register hook. */
function tapDeclarations(plugin: Plugin<any>, hooks: HookTable): void {
  // Every register hook hands its kind's registrar, whose `add` takes that kind's definitions.
  const register: Readonly<Record<RegisterHookName, { tap(options: string, fn: (r: { add(def: unknown): boolean }) => void): void }>> = hooks;
  for (const kind of KIND_NAMES) {
    const defs: readonly unknown[] | undefined = plugin[pluralOf(kind)];
    if (defs?.length) register[registerHookOf(kind)].tap(plugin.name, (r) => void defs.forEach((d) => r.add(d)));
  }
}

/** Tap a plain-object plugin's declarations and handlers (through its view, so they are wrapped too). */
export function tapPluginObject(plugin: Plugin<any>, hooks: HookTable, phase: "config" | "setup"): void {
  const name = plugin.name;
  if (phase === "setup") tapDeclarations(plugin, hooks);
  // Every hook's method, in table order; `config` alone in its phase (it runs before any setup).
  const table: Readonly<Record<HookName, { tap(options: string, fn: Handler): void }>> = hooks;
  for (const hook of HOOK_NAMES) {
    if ((hook === "config") !== (phase === "config")) continue;
    const method: unknown = plugin[hook];
    // Bound, not wrapped: the wrapping is wrapHandler's, and the adapter then calls the plugin directly.
    if (typeof method === "function") table[hook].tap(name, method.bind(plugin) as Handler);
  }
}
