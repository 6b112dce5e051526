/**
 * What a hook looks like to plugins and embedders: tap only. They can add their handlers, never list,
 * remove, reorder or intercept anyone else's, nor call a hook themselves.
 */
import type { AgentEventType } from "./events.js";

/**
 * Options of a tap, as tapable takes them. The tap is always named after the plugin that made it, so
 * `name` (like a string in its place) is accepted and ignored: failures are reported with the plugin's name.
 */
export interface TapOptions {
  name?: string;
  /**
   * Moves this tap among the hook's others: lower runs earlier. Added to the plugin's `enforce` stage
   * (`pre` -100, none 0, `post` 100); taps of one stage run in the order they were made.
   */
  stage?: number;
  /** Run before the taps these plugins made so far (tapable's `before`; a tap's name is its plugin's). */
  before?: string | readonly string[];
}

/** Options of an `event` tap: the event types it wants (the others never reach it). */
export interface EventTapOptions extends TapOptions {
  /**
   * Only these event types reach the handler. A host whose event handlers all name types builds no
   * event of the other types (a call's `tool_start` / `tool_end` cost something to build).
   */
  types?: readonly AgentEventType[];
}

/** A hook as plugins see it: tap only. A handler that throws or does not settle in time is reported and skipped. */
export interface Tappable<Args extends unknown[], R> {
  /** Add a handler; for async hooks it may return a promise. */
  tap(options: string | TapOptions, handler: (...args: Args) => R | Promise<R>): void;
  /** Add a promise-returning handler. */
  tapPromise(options: string | TapOptions, handler: (...args: Args) => Promise<R>): void;
  /** Add a callback-style handler (`callback(err, result)`). */
  tapAsync(options: string | TapOptions, handler: (...args: [...Args, (err?: unknown, result?: R) => void]) => void): void;
}

/** A synchronous hook (`event`, `transcript`): tap only, and the handler must not return a promise. */
export interface SyncTappable<Args extends unknown[], R = void> {
  tap(options: string | EventTapOptions, handler: (...args: Args) => R | void): void;
}
