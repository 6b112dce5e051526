/**
 * How plugins meet the hooks (Rollup's plugin driver in spirit): every tap is named after its plugin,
 * every handler is wrapped so an error is reported with plugin and hook name and never takes the host
 * down, and register hooks hand each plugin a registrar scoped to it.
 */
import { errorMessage } from "./errors.js";
import type { HookName, HookTable } from "./hooks.js";
import type { Plugin } from "./types.js";

const SCOPE = Symbol.for("agent-host.scope");
type Scopable<T> = T & { [SCOPE](plugin: string): T };

/** An object passed to a hook whose plugin handlers each receive `forPlugin(<their name>)` instead. */
export function withPluginScope<T extends object>(hostScope: T, forPlugin: (plugin: string) => T): Scopable<T> {
  return Object.assign(Object.create(hostScope) as T, { [SCOPE]: forPlugin }) as Scopable<T>;
}

/** What a throwing handler yields, per hook, so the host keeps going. */
export function handlerFallback(hook: HookName, plugin: string, err: unknown): unknown {
  if (hook === "beforeToolCall") return { deny: `plugin ${plugin} failed in beforeToolCall (${errorMessage(err)}); the call was blocked to be safe` };
  return undefined;
}

export interface DriverOptions {
  /** A plugin that failed in setup: its handlers no longer run. */
  isFailed(plugin: string): boolean;
  /** Report a handler's error; returns the value the hook goes on with. */
  onError(plugin: string, hook: HookName, err: unknown): unknown;
}

function wrapHandler(plugin: string, hook: HookName, fn: (...args: unknown[]) => unknown, opts: DriverOptions): (...args: unknown[]) => unknown {
  const fail = (err: unknown) => opts.onError(plugin, hook, err);
  return (...args: unknown[]) => {
    if (opts.isFailed(plugin)) return undefined;
    const first = args[0] as Partial<Scopable<object>> | undefined;
    if (first && typeof first === "object" && typeof first[SCOPE] === "function") args = [first[SCOPE](plugin), ...args.slice(1)];
    try {
      const out = fn(...args);
      if (out && typeof (out as Promise<unknown>).then === "function") return (out as Promise<unknown>).then(undefined, fail);
      return out;
    } catch (err) {
      return fail(err);
    }
  };
}

/** The hook table as a plugin sees it: taps are named after the plugin, staged by its `enforce`, and wrapped. */
export function pluginHookView(hooks: HookTable, plugin: string, stage: number, opts: DriverOptions): HookTable {
  const view: Record<string, unknown> = {};
  for (const [hookName, hook] of Object.entries(hooks) as [HookName, HookTable[HookName]][]) {
    view[hookName] = new Proxy(hook, {
      get(target, prop, receiver) {
        if (prop === "tap" || prop === "tapPromise") {
          return (tapOpts: string | { name?: string; stage?: number; before?: string | string[] }, fn: (...a: unknown[]) => unknown) => {
            const o = typeof tapOpts === "string" ? {} : tapOpts;
            const named = { stage, ...o, name: plugin };
            const wrapped = wrapHandler(plugin, hookName, fn, opts);
            if (prop === "tap") (target as { tap: Function }).tap(named, wrapped);
            else (target as { tapPromise: Function }).tapPromise(named, async (...a: unknown[]) => wrapped(...a));
          };
        }
        if (prop === "tapAsync") {
          return (tapOpts: string | { name?: string; stage?: number }, fn: (...a: unknown[]) => void) => {
            const o = typeof tapOpts === "string" ? {} : tapOpts;
            const promised = (...a: unknown[]) => new Promise((resolve, reject) => fn(...a, (err: unknown, v: unknown) => (err ? reject(err) : resolve(v))));
            (target as { tapPromise: Function }).tapPromise({ stage, ...o, name: plugin }, wrapHandler(plugin, hookName, promised, opts));
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
  }
  return Object.freeze(view) as HookTable;
}

/** Tap a plain-object plugin's declarations and handlers. */
export function tapPluginObject(plugin: Plugin, hooks: HookTable): void {
  const name = plugin.name;
  if (plugin.tools?.length) hooks.registerTools.tapPromise(name, async (r) => void plugin.tools!.forEach((t) => r.add(t)));
  if (plugin.commands?.length) hooks.registerCommands.tapPromise(name, async (r) => void plugin.commands!.forEach((c) => r.add(c)));
  if (plugin.skills?.length) hooks.registerSkills.tapPromise(name, async (r) => void plugin.skills!.forEach((s) => r.add(s)));
  if (plugin.providers?.length) hooks.registerProviders.tapPromise(name, async (r) => void plugin.providers!.forEach((p) => r.add(p)));
  const h = plugin;
  if (h.config) hooks.config.tapPromise(name, async (c) => (await h.config!(c)) ?? c);
  if (h.registerProviders) hooks.registerProviders.tapPromise(name, async (r) => h.registerProviders!(r));
  if (h.registerTools) hooks.registerTools.tapPromise(name, async (r) => h.registerTools!(r));
  if (h.registerCommands) hooks.registerCommands.tapPromise(name, async (r) => h.registerCommands!(r));
  if (h.registerSkills) hooks.registerSkills.tapPromise(name, async (r) => h.registerSkills!(r));
  if (h.beforeModelRequest) hooks.beforeModelRequest.tapPromise(name, async (req) => (await h.beforeModelRequest!(req)) ?? req);
  if (h.beforeToolCall) hooks.beforeToolCall.tapPromise(name, async (call) => (await h.beforeToolCall!(call)) ?? undefined);
  if (h.afterToolCall) hooks.afterToolCall.tapPromise(name, async (res, call) => (await h.afterToolCall!(res, call)) ?? res);
  if (h.event) hooks.event.tap(name, (e) => h.event!(e));
  if (h.shutdown) hooks.shutdown.tapPromise(name, async () => h.shutdown!());
}
