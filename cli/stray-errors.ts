/**
 * Errors nobody caught: a plugin's stray promise rejection or a throw from its timer. They are
 * reported (naming the plugin when its files appear in the stack) and the command goes on: no stack
 * trace unless --debug, and no crash of a run that was otherwise fine.
 */
import path from "node:path";
import { errorMessage } from "../core/index.js";
import { type PluginStatus } from "../core/embed.js";

/**
 * The plugin whose code appears first in the error's stack, if any: a package's folder (an npm plugin's
 * own files), or the very file a local plugin was loaded from (its folder may hold other code, the host's too).
 */
export function blame(err: unknown, plugins: readonly PluginStatus[]): string | undefined {
  const stack = err instanceof Error ? (err.stack ?? "") : "";
  let best: { name: string; at: number } | undefined;
  for (const p of plugins) {
    const local = p.from.startsWith(".") || path.isAbsolute(p.from);
    const needle = local ? p.file : p.dir && p.dir + path.sep;
    if (!needle) continue;
    const at = stack.indexOf(needle);
    if (at >= 0 && (!best || at < best.at)) best = { name: p.name, at };
  }
  return best?.name;
}

export function watchStrayErrors(plugins: () => readonly PluginStatus[], debug: () => boolean): () => void {
  const seen = new Set<string>();
  const onError = (err: unknown) => {
    const who = blame(err, plugins());
    const line = `agent: ${who ? `plugin ${who}` : "plugin code"} left an error nobody handled: ${errorMessage(err)}`;
    if (seen.has(line)) return;
    seen.add(line);
    process.stderr.write(`${line}\n`);
    if (debug() && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  };
  process.on("unhandledRejection", onError);
  process.on("uncaughtException", onError);
  return () => {
    process.off("unhandledRejection", onError);
    process.off("uncaughtException", onError);
  };
}
