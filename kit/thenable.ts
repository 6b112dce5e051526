/** Whether a value a plugin's function returned is a promise (any thenable), to await it only then. */
export function isThenable<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof (v as { then?: unknown } | null)?.then === "function";
}
