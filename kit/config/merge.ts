/**
 * Merging config values, file over file: the mechanics. Which lists join and which switches stay on is
 * the caller's to say (the kernel's config merge, core/config/config.ts; a plugin section's strategy).
 */
import { isPlainObject } from "../text/plain-object.js";

export interface MergeRules {
  /** Key paths (`permissions.allow`) whose lists join, strings deduplicated, instead of being replaced. */
  readonly concat: ReadonlySet<string>;
  /** Key paths that, once one value set them true, stay true whatever a later value says. */
  readonly sticky: ReadonlySet<string>;
}

/** Deep-merge `over` onto `under`: objects merge, `rules.concat` lists join, everything else is replaced. */
export function mergeDeep<T extends object>(under: T, over: T, rules: MergeRules, prefix = ""): T {
  const out: Record<string, unknown> = { ...(under as Record<string, unknown>) };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const keyPath = prefix ? `${prefix}.${key}` : key;
    const prev = out[key];
    if (Array.isArray(value) && Array.isArray(prev) && rules.concat.has(keyPath)) {
      const seen = new Set<string>();
      out[key] = [...prev, ...value].filter((v) => {
        if (typeof v !== "string") return true;
        if (seen.has(v)) return false;
        seen.add(v);
        return true;
      });
    } else if (isPlainObject(value) && isPlainObject(prev) && !isPluginLike(value)) {
      out[key] = mergeDeep(prev, value, rules, keyPath);
    } else if (rules.sticky.has(keyPath) && prev === true) {
      // A safety switch one file turned on stays on: a later file (a cloned folder's) cannot turn it off.
    } else {
      out[key] = value;
    }
  }
  return out as T;
}

/** An inline plugin object is code and state: replaced whole, never merged key by key. */
function isPluginLike(v: Record<string, unknown>): boolean {
  return typeof v.run === "function" || typeof v.setup === "function";
}

/**
 * A later file's value of a plugin section over an earlier one's, by the section's strategy: `entries`
 * (top-level keys replaced), `concat` (lists joined, see concatMerge) or `deep` (the given deep merge).
 */
export function mergeSectionValue(prev: unknown, next: unknown, merge: "deep" | "entries" | "concat", deep: (a: Record<string, unknown>, b: Record<string, unknown>) => unknown): unknown {
  if (merge === "concat") return concatMerge(prev, next);
  if (!isPlainObject(prev) || !isPlainObject(next)) return next;
  if (merge === "entries") return { ...prev, ...next };
  return deep(prev, next);
}

/** Objects merge key by key and lists are joined, later files' entries after earlier ones' (hook lists). */
function concatMerge(prev: unknown, next: unknown): unknown {
  if (Array.isArray(prev) && Array.isArray(next)) return [...prev, ...next];
  if (!isPlainObject(prev) || !isPlainObject(next)) return next;
  const out: Record<string, unknown> = { ...prev };
  for (const [k, v] of Object.entries(next)) out[k] = k in out ? concatMerge(out[k], v) : v;
  return out;
}
