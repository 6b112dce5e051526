/**
 * How many file descriptors this process may hold (the soft `ulimit -n`) and how many it holds now.
 * Linux only (/proc): Node 20 has no `process.getrlimit`. Elsewhere both are unknown and nothing is bounded.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface Descriptors {
  /** The soft limit (`ulimit -n`). */
  limit: number;
  /** Open now. */
  open: number;
}

/** The soft "Max open files" of /proc/self/limits; undefined where it is unknown or unlimited. */
export function descriptorLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

export function openDescriptors(): number | undefined {
  try {
    // readdirSync holds one descriptor of its own while it reads the folder.
    return readdirSync("/proc/self/fd").length - 1;
  } catch {
    return undefined;
  }
}

export function descriptors(): Descriptors | undefined {
  const limit = descriptorLimit();
  const open = limit === undefined ? undefined : openDescriptors();
  return limit === undefined || open === undefined ? undefined : { limit, open };
}

export function isTooManyFiles(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === "EMFILE" || code === "ENFILE";
}

/** The text of an error that says the process ran out of descriptors (spawn errors carry only the code). */
export function mentionsTooManyFiles(text: string): boolean {
  return /\bE[MN]FILE\b|too many open files/i.test(text);
}

/** Why a server could not start for want of descriptors, naming the limit and what raises it. */
export function tooManyFilesReason(d: Descriptors | undefined): string {
  const held = d ? `the process may hold ${d.limit} descriptors (ulimit -n) and holds ${d.open}` : "the process reached its descriptor limit (ulimit -n)";
  return `too many open files: ${held}; raise the limit (ulimit -n 4096) or configure fewer servers`;
}
