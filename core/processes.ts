/**
 * Child process bookkeeping: no child outlives the host. Plugins that spawn register the child
 * here; `killAll` runs on host close, and a synchronous `exit` handler is the last line of defence
 * (uncaught errors, `process.exit`). Children spawned with `detached: true` lead their own process
 * group, so the whole group (grandchildren included) is signalled.
 */
import type { ChildProcess } from "node:child_process";

interface Tracked {
  pid: number;
  group: boolean;
}

const tracked = new Map<number, Tracked>();
let exitHandlerInstalled = false;

function signal(t: Tracked, sig: NodeJS.Signals): void {
  try {
    process.kill(t.group ? -t.pid : t.pid, sig);
  } catch {
    /* already gone */
  }
}

function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on("exit", () => {
    for (const t of tracked.values()) signal(t, "SIGKILL");
  });
}

/**
 * Make sure `child` (and, with `group: true`, its process group) dies with the host.
 * Spawn with `detached: true` to get a group of its own. Returns an untrack function.
 */
export function trackChildProcess(child: ChildProcess | { pid?: number }, options: { group?: boolean } = {}): () => void {
  const pid = child.pid;
  if (!pid) return () => {};
  installExitHandler();
  const t = { pid, group: options.group ?? false };
  tracked.set(pid, t);
  const untrack = () => tracked.delete(pid);
  if ("once" in child && typeof child.once === "function") child.once("exit", untrack);
  return untrack;
}

/** Terminate a process (group): SIGTERM, then SIGKILL after `graceMs` if it is still alive. */
export async function terminate(pid: number, options: { group?: boolean; graceMs?: number } = {}): Promise<void> {
  const t = { pid, group: options.group ?? false };
  signal(t, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 2000);
  while (Date.now() < deadline) {
    if (!isAlive(t)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  if (isAlive(t)) signal(t, "SIGKILL");
  tracked.delete(pid);
}

function isAlive(t: Tracked): boolean {
  try {
    process.kill(t.group ? -t.pid : t.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Terminate every tracked child. */
export async function killAllChildren(graceMs = 1500): Promise<void> {
  await Promise.all([...tracked.values()].map((t) => terminate(t.pid, { group: t.group, graceMs })));
}

export function trackedChildCount(): number {
  return tracked.size;
}
