/** "Did you mean …?" for mistyped names: tools, config keys, commands. */

/** Case-insensitive Levenshtein distance; 99 when the lengths alone are too far apart to matter. */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  if (Math.abs(a.length - b.length) > 8) return 99;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** Up to `max` candidates within `maxDistance` edits of `name` (default: a third of its length, at least 2), closest first. */
export function closestNames(name: string, candidates: Iterable<string>, options: { max?: number; maxDistance?: number } = {}): string[] {
  const limit = options.maxDistance ?? Math.max(2, Math.floor(name.length / 3));
  return [...candidates]
    .map((n) => ({ n, d: editDistance(name, n) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d)
    .slice(0, options.max ?? 2)
    .map((x) => x.n);
}

/** Up to two tool names close to a mistyped one; a name that ends with it after a `_` counts too (a namespaced tool called by its short name). */
export function nearestToolNames(name: string, names: string[]): string[] {
  const near = closestNames(name, names);
  const byShortName = names.find((n) => n.endsWith(`_${name}`) && !near.includes(n));
  return byShortName ? [...near, byShortName].slice(0, 2) : near;
}
