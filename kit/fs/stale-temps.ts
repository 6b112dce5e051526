/**
 * Temp files of atomic writes carry their writer's pid, so a writer killed between writing its temp
 * file and renaming it (kill -9, a power cut) leaves one that the next write into that folder can
 * tell apart from a live writer's: it removes those whose pid is gone, and nothing else.
 */
import { readdirSync, unlinkSync } from "node:fs";
import path from "node:path";

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `text` as a literal inside a RegExp. */
export function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const swept = new Set<string>();

/**
 * Removes the entries of `folder` that `pidOf` names a writer of (a pid, for names matching the
 * writer's exact temp pattern; undefined for anything else) when that writer is no longer alive.
 * Best effort: never throws, since the write it follows has already succeeded. Returns what it removed.
 * With a `key` (the target's path), done once per key in this process.
 */
export function removeDeadWritersTemps(folder: string, pidOf: (name: string) => number | undefined, key?: string): string[] {
  // Once per target and process: a folder is listed once, not on every write of a model that writes a hundred files there.
  if (key !== undefined) {
    if (swept.has(key)) return [];
    swept.add(key);
  }
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = pidOf(name);
    if (pid === undefined || !(pid > 0) || processAlive(pid)) continue;
    try {
      unlinkSync(path.join(folder, name));
      removed.push(name);
    } catch {
      /* gone already, or not ours to remove */
    }
  }
  return removed;
}

/** The pid in `name` when it is `prefix<pid>suffix` exactly, where `suffix` is a RegExp source. */
export function pidMatcher(prefix: string, suffix: string): (name: string) => number | undefined {
  const re = new RegExp(`^${literalPattern(prefix)}(\\d{1,10})${suffix}$`);
  return (name) => {
    const m = re.exec(name);
    return m ? Number(m[1]) : undefined;
  };
}
