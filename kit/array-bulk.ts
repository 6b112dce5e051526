/**
 * Bulk array edits that work for any length. `a.push(...items)` and `a.splice(0, n, ...items)` pass every
 * item as a call argument, which overflows the stack past roughly 100k items (a long session's messages).
 */

/** Appends `items` to `target` in place, one by one. */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Makes `target` hold exactly `items`, in place (callers keep their reference to `target`). */
export function replaceAll<T>(target: T[], items: readonly T[]): void {
  if (target === items) return;
  target.length = 0;
  appendAll(target, items);
}
