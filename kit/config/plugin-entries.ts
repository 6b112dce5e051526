/**
 * A config's `plugins` and `disabledPlugins` entries as values: the name an entry gives, paths made
 * absolute from the file that wrote them, and whether a `disabledPlugins` entry names a plugin. Which
 * plugins load, and from where, is the kernel's (core/plugins/).
 */
import path from "node:path";
import { candidates, isLocalPath } from "../plugin-resolve.js";

/** A `plugins` entry: an npm name or a path, a `[name, options]` pair, or an inline plugin object. */
type Entry = string | readonly [string, unknown] | object;

/** The name an entry gives (an inline object's `name`) and its options (a pair's). */
export function pluginEntrySpec(entry: Entry): { name: string; options: unknown } {
  if (typeof entry === "string") return { name: entry, options: undefined };
  if (Array.isArray(entry)) return { name: entry[0], options: entry[1] };
  return { name: (entry as { name: string }).name, options: undefined };
}

/** An entry with a relative path made absolute from `dir` (an npm name or an inline object as it is). */
export function absolutePluginEntry<E extends Entry>(entry: E, dir: string): E {
  const abs = (p: string) => (isLocalPath(p) ? path.resolve(dir, p) : p);
  if (typeof entry === "string") return abs(entry) as E;
  if (Array.isArray(entry)) return [abs(entry[0]), entry[1]] as unknown as E;
  return entry;
}

interface ConfigPaths {
  plugins?: readonly Entry[];
  disabledPlugins?: readonly string[];
  workspace?: { roots?: readonly string[] };
}

/** Relative paths in a config file are relative to that file (`dir`): made absolute before merging. */
export function absolutizePaths<C extends ConfigPaths>(config: C, dir: string): C {
  const out: C = { ...config };
  if (config.plugins) out.plugins = config.plugins.map((e) => absolutePluginEntry(e, dir));
  if (config.disabledPlugins) out.disabledPlugins = config.disabledPlugins.map((p) => (isLocalPath(p) ? path.resolve(dir, p) : p));
  if (config.workspace?.roots) out.workspace = { ...config.workspace, roots: config.workspace.roots.map((r) => path.resolve(dir, r)) };
  return out;
}

/** Whether a `disabledPlugins` entry names this plugin: its name, its config entry, or the package either stands for. */
export function isDisabled(disabled: readonly string[] | undefined, spec: { from: string; name?: string }): boolean {
  if (!disabled?.length) return false;
  const names = new Set<string>();
  if (spec.name) names.add(spec.name);
  if (spec.from !== "builtin" && !spec.from.startsWith("inline:")) {
    names.add(spec.from);
    if (!isLocalPath(spec.from)) for (const c of candidates(spec.from)) names.add(c);
  }
  return disabled.some((d) => names.has(d) || (!isLocalPath(d) && candidates(d).some((c) => names.has(c))));
}
