/**
 * How deep a value nests, found without recursion: configs and frames from outside may nest a hundred
 * thousand levels, and every recursive walk over them (validation, redaction, JSON.stringify) would
 * overflow the stack. Callers refuse such values up front, naming where they went too deep.
 */

/** The key path (`a.b[3].c`) at which `value` nests deeper than `max` levels, or undefined when it does not. */
export function tooDeep(value: unknown, max: number): string | undefined {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: "" }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return path || "(root)";
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
    else for (const [k, x] of Object.entries(v)) stack.push({ v: x, depth: depth + 1, path: path ? `${path}.${k}` : k });
  }
  return undefined;
}

/** The deepest a config may nest: far beyond any real one, far below what a recursive walk survives. */
export const MAX_CONFIG_DEPTH = 64;

/** A key path for a message: long ones keep their start, and say how deep they go. */
export function shortPath(path: string, keep = 6): string {
  const parts = path.match(/[^.[\]]+|\[\d+\]/g) ?? [path];
  if (parts.length <= keep + 1) return path;
  return `${parts.slice(0, keep).join(".").replace(/\.\[/g, "[")}…(${parts.length} levels)`;
}
