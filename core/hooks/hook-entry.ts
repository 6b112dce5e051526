/**
 * The kinds of entry the hook table (hooks.ts) is declared with. An entry says, once, which tapable hook
 * the host runs, what the host passes it (`Host`), what a plugin's tap is handed (`View`) and may return
 * (`Out`), what a plugin object's method is handed (`Handed`, the view as the runtime freezes it), what a
 * failing handler means and which timeout bounds it. The type parameters are the contract; hooks.ts
 * derives the raw table, the tap-only views and the plugin-object methods from them.
 */
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from "tapable";

export type HookKind = "series" | "bail" | "waterfall" | "parallel" | "sync";

/**
 * What a handler that throws, times out or returns garbage means: `skip` (the hook goes on without it),
 * `deny` (the call is denied, to be safe), `block` (the step it screens, a prompt, does not happen).
 */
export type FailurePolicy = "skip" | "deny" | "block";

/**
 * Which `pluginTimeouts` bound a handler: `startup` (config, register), `call` (the user waits), `shutdown`;
 * `model`: none, the handler waits for the run's model (bounded by the run's signal).
 */
export type TimeoutClass = "startup" | "call" | "shutdown" | "model";

/** tapable's argument names: one per argument the host passes. */
type ArgNames<Host extends unknown[]> = NonNullable<ConstructorParameters<typeof AsyncSeriesHook<Host>>[0]>;

export interface EntryOptions<Host extends unknown[]> {
  args: ArgNames<Host>;
  failure: FailurePolicy;
  timeout: TimeoutClass;
}

/** What every entry declares. `types` exists only for the compiler: it carries the entry's types. */
abstract class Entry<Host extends unknown[], View extends unknown[], Out, Handed extends unknown[]> {
  abstract readonly kind: HookKind;
  declare readonly types: { host: Host; view: View; out: Out; handed: Handed };
  readonly args: ArgNames<Host>;
  readonly failure: FailurePolicy;
  readonly timeout: TimeoutClass;
  constructor(options: EntryOptions<Host>) {
    this.args = options.args;
    this.failure = options.failure;
    this.timeout = options.timeout;
  }
}

/** AsyncSeries: handlers run one after the other; what they return is gathered by the host's collector. */
export class SeriesHook<Host extends unknown[], View extends unknown[] = Host, Out = void, Handed extends unknown[] = View> extends Entry<Host, View, Out, Handed> {
  readonly kind = "series";
  create(): AsyncSeriesHook<Host> {
    return new AsyncSeriesHook<Host>(this.args);
  }
}

/** AsyncSeriesBail: the first handler that returns something (`Result`) stops the others. */
export class BailHook<Host extends unknown[], View extends unknown[], Out, Result, Handed extends unknown[] = View> extends Entry<Host, View, Out, Handed> {
  readonly kind = "bail";
  create(): AsyncSeriesBailHook<Host, Result> {
    return new AsyncSeriesBailHook<Host, Result>(this.args);
  }
}

/** AsyncSeriesWaterfall: each handler may replace the first argument for the next. */
export class WaterfallHook<Host extends unknown[], View extends unknown[] = Host, Out = Host[0], Handed extends unknown[] = View> extends Entry<Host, View, Out, Handed> {
  readonly kind = "waterfall";
  create(): AsyncSeriesWaterfallHook<Host> {
    return new AsyncSeriesWaterfallHook<Host>(this.args);
  }
}

/** AsyncParallel: every handler at once; nothing is returned. */
export class ParallelHook<Host extends unknown[]> extends Entry<Host, Host, void, Host> {
  readonly kind = "parallel";
  create(): AsyncParallelHook<Host> {
    return new AsyncParallelHook<Host>(this.args);
  }
}

/** Sync: handlers run in the caller's tick (they cannot be bounded by a timeout); what they return goes to the host's collector, if any. */
export class SyncSeriesHook<Host extends unknown[], View extends unknown[] = Host, Out = void, Handed extends unknown[] = View> extends Entry<Host, View, Out, Handed> {
  readonly kind = "sync";
  create(): SyncHook<Host> {
    return new SyncHook<Host>(this.args);
  }
}
