/**
 * Child process bookkeeping: no child outlives its host. Each host has its own `ProcessScope`;
 * plugins and tools register the children they start with it (`ctx.processes.track`), and closing
 * the host stops those and only those. A synchronous `exit` handler over every scope covers uncaught
 * errors and `process.exit`; for a death no code runs after (`kill -9`, a crash), a watchdog shell
 * holds the list too and kills what is on it when the pipe from this process closes. Children spawned
 * with `detached: true` lead their own process group, so the whole group (grandchildren included) is
 * signalled.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeSync } from "node:fs";

/** A child process the host should stop when it closes (a Node `ChildProcess` fits). */
export interface TrackableProcess {
  pid?: number;
  once?(event: "exit", listener: (...args: any[]) => void): unknown;
}

/** The child processes of one host: stopped when that host closes, killed if the process exits. */
export interface ProcessTracker {
  /**
   * Tie `child` (and, with `group: true`, its process group: spawn it with `detached: true`) to this
   * host. Returns a function that stops tracking it. Closing another host never touches it.
   */
  track(child: TrackableProcess, options?: { group?: boolean }): () => void;
}

interface Tracked {
  pid: number;
  group: boolean;
}

/** Every live scope, for the exit handler. */
const scopes = new Set<ProcessScope>();
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
    for (const scope of scopes) {
      for (const t of scope.tracked.values()) {
        signal(t, "SIGKILL");
        watchdog.forget(t, true);
      }
    }
  });
}

/**
 * A `sh` that outlives this process: it reads `a <id>` / `r <id>` lines (an id is a pid, or `-pgid` for
 * a group) and, when its stdin closes because this process died, SIGKILLs every id still listed. It
 * ignores the terminal's signals so a Ctrl-C to the whole group does not take it before its work.
 */
const WATCHDOG = `trap '' INT TERM HUP
ids=""
while read -r op id; do
  case "$op" in
    a) ids="$ids $id" ;;
    r) kept=""; for i in $ids; do [ "$i" = "$id" ] || kept="$kept $i"; done; ids=$kept ;;
  esac
done
for i in $ids; do kill -KILL "$i" 2>/dev/null; done`;

const watchdog = {
  child: undefined as ChildProcess | undefined,
  failed: false,
  /** The pipe's descriptor, for writes that must land before this process exits. */
  fd(): number | undefined {
    return (this.child?.stdin as unknown as { _handle?: { fd?: number } } | undefined)?._handle?.fd;
  },
  write(line: string, sync = false): void {
    if (this.failed || process.platform === "win32") return;
    if (!this.child) {
      try {
        this.child = spawn("/bin/sh", ["-c", WATCHDOG], { stdio: ["pipe", "ignore", "ignore"], detached: true });
        this.child.on("error", () => (this.failed = true));
        this.child.stdin?.on("error", () => (this.failed = true));
        // It must never keep this process alive, nor be stopped by it except through its stdin.
        this.child.unref();
        (this.child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      } catch {
        this.failed = true;
        return;
      }
    }
    const fd = sync ? this.fd() : undefined;
    try {
      if (fd !== undefined) writeSync(fd, line);
      else this.child.stdin?.write(line);
    } catch {
      /* the watchdog is gone: the exit handler still runs */
    }
  },
  remember(t: Tracked): void {
    this.write(`a ${t.group ? -t.pid : t.pid}\n`);
  },
  /** Off the list: the child ended, or was stopped (so a later process reusing its pid is never hit). */
  forget(t: Tracked, sync = false): void {
    if (this.child) this.write(`r ${t.group ? -t.pid : t.pid}\n`, sync);
  },
};

/** The children of one host. */
export class ProcessScope implements ProcessTracker {
  /** @internal */
  readonly tracked = new Map<number, Tracked>();

  constructor() {
    scopes.add(this);
  }

  track(child: TrackableProcess, options: { group?: boolean } = {}): () => void {
    const pid = child.pid;
    if (!pid) return () => {};
    installExitHandler();
    const t = { pid, group: options.group ?? false };
    this.tracked.set(pid, t);
    watchdog.remember(t);
    const untrack = () => {
      if (this.tracked.get(pid) !== t) return;
      this.tracked.delete(pid);
      watchdog.forget(t);
    };
    if (typeof child.once === "function") child.once("exit", untrack);
    return untrack;
  }

  /** Terminate every child of this scope; the scope stays usable (a later child is tracked again). */
  async killAll(graceMs = 1500): Promise<void> {
    await Promise.all(
      [...this.tracked.values()].map((t) =>
        terminate(t.pid, { group: t.group, graceMs }).then(() => {
          this.tracked.delete(t.pid);
          watchdog.forget(t);
        }),
      ),
    );
  }

  /** Stop and forget the scope (host closed). */
  async dispose(graceMs?: number): Promise<void> {
    await this.killAll(graceMs);
    scopes.delete(this);
  }

  get size(): number {
    return this.tracked.size;
  }
}

/** Terminate a process (group): SIGTERM, then SIGKILL after `graceMs` if it is still alive; resolves once it is gone. */
export async function terminate(pid: number, options: { group?: boolean; graceMs?: number } = {}): Promise<void> {
  const t = { pid, group: options.group ?? false };
  signal(t, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? 2000);
  while (Date.now() < deadline) {
    if (!isAlive(t)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  if (isAlive(t)) {
    signal(t, "SIGKILL");
    // SIGKILL is delivered asynchronously: wait (briefly) until it took, so the caller sees them gone.
    const killDeadline = Date.now() + 1000;
    while (isAlive(t) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 10));
  }
}

function isAlive(t: Tracked): boolean {
  try {
    process.kill(t.group ? -t.pid : t.pid, 0);
  } catch {
    return false;
  }
  // kill(0) also succeeds for zombies: a group member whose parent died is reparented to PID 1, and
  // where PID 1 does not reap (containers, sandboxes) it stays a zombie for good. Those are dead, so
  // on Linux look at what is left rather than wait out the grace period for nothing.
  if (process.platform !== "linux") return true;
  const leader = procStat(t.pid);
  if (leader && leader.state !== "Z" && leader.state !== "X") return true;
  return t.group ? groupHasLiveMember(t.pid) : false;
}

/** State letter and process group of a process, from /proc/<pid>/stat; undefined when it is gone. */
function procStat(pid: number | string): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: the fields that follow it are "state ppid pgrp".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

function groupHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc to look at: believe kill(0)
  }
  for (const e of entries) {
    const c = e.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const st = procStat(e);
    if (st && st.pgrp === pgid && st.state !== "Z" && st.state !== "X") return true;
  }
  return false;
}

/** Children tracked by every live host (for tests). */
export function trackedChildCount(): number {
  let n = 0;
  for (const scope of scopes) n += scope.size;
  return n;
}
