/**
 * A plugin's tap options (`hook.tap(options, fn)`), checked and made into what tapable is told: named
 * after the plugin whatever the options say, its own `stage` added to the plugin's, `before` as a list;
 * an `event` tap's `types` as a set. Options of the wrong shape are a TypeError for the plugin.
 */

/** What tapable is told of a tap. */
export interface RawTapOptions {
  name: string;
  stage: number;
  before?: string | string[];
}

export function tapOptionsOf(options: unknown, plugin: string, stage: number): RawTapOptions {
  if (options === undefined || typeof options === "string") return { name: plugin, stage };
  if (typeof options !== "object" || options === null) throw new TypeError("tap options must be a string or { name, stage?, before? }");
  const own: unknown = (options as { stage?: unknown }).stage ?? 0;
  const before: unknown = (options as { before?: unknown }).before;
  if (typeof own !== "number" || !Number.isFinite(own)) throw new TypeError("tap option stage must be a finite number");
  if (before === undefined) return { name: plugin, stage: stage + own };
  const names = typeof before === "string" ? [before] : before;
  if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) throw new TypeError("tap option before must be a plugin name or a list of plugin names");
  return { name: plugin, stage: stage + own, before: [...names] };
}

/** An event tap's `types`, as a set; undefined for every type. */
export function eventTypes(options: unknown): ReadonlySet<string> | undefined {
  const types = typeof options === "object" && options !== null ? (options as { types?: unknown }).types : undefined;
  if (types === undefined) return undefined;
  if (!Array.isArray(types) || !types.every((t) => typeof t === "string")) throw new TypeError("event tap types must be an array of event type names");
  return new Set(types as string[]);
}
