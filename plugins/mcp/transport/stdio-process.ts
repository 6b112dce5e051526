/**
 * A stdio server's process: spawned in its own process group (so stopping it takes its children
 * too), with a minimal environment, stderr going to the server's log file. This module does not
 * load the MCP SDK, so servers start booting while the SDK is still being imported.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { type ProcessTracker } from "../../../core/index.js";
import { terminate } from "../../../kit/index.js";
import { redactString } from "../../../kit/index.js";
import type { ServerLog } from "./server-log.js";

/**
 * The variables the SDK's `getDefaultEnvironment()` passes on (a test checks the lists agree).
 * Mirrored here so that spawning does not wait for the SDK to load.
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The parent's safe variables only: a server gets what it needs plus its own `env`, not our secrets. */
export function minimalEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV_VARS) {
    const value = process.env[key];
    // Exported shell functions (`() { ...`) are a known injection vector.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all. */
  spawnError?: NodeJS.ErrnoException;
}

export interface SpawnOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  log: ServerLog;
  /** The host's process tracker: the server dies with the host that started it. */
  processes: ProcessTracker;
}

const useGroups = process.platform !== "win32";
const STDERR_TAIL_CHARS = 2000;
const STDERR_HEAD_CHARS = 8000;

/**
 * A stderr line that says why a process failed: a thrown error (Node's `Error: …`, `TypeError: …`,
 * `Error [ERR_MODULE_NOT_FOUND]: …`; Python's `ModuleNotFoundError: …`), `fatal:`, `error:`, `panic:`,
 * a Rust panic, an npm error.
 */
const CAUSE_LINE =
  /^(?:Uncaught\s+)?(?:(?:[A-Za-z_$][\w.$]*)?(?:Error|Exception)(?:\s*\[[^\]]*\])?:\s*\S|(?:error|fatal|panic)(?:\[[^\]]*\])?:\s*\S|thread '.*' panicked at|Exception in thread |npm (?:ERR!|error) (?!code\b)\S)/i;

/**
 * The first line of `texts` (stderr's head, then its tail) that says why a process failed, shortened to
 * 300 characters. Python's exception-group frames (`  | RuntimeError: …`) are read without their bars.
 */
export function stderrCauseLine(texts: readonly string[]): string | undefined {
  for (const text of texts) {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim().replace(/^\|\s*/, "");
      if (CAUSE_LINE.test(line)) return line.length > 300 ? `${line.slice(0, 299)}…` : line;
    }
  }
  return undefined;
}

export class StdioServerProcess {
  readonly child: ChildProcess;
  exit: ExitInfo | undefined;
  /** Resolves once the process has exited (or failed to start). */
  readonly exited: Promise<ExitInfo>;
  /** Resolves once the process has exited and its output has been read (or shortly after exit). */
  readonly closed: Promise<void>;
  private stderrText = "";
  /** The first bytes of stderr: a thrown error's message comes before its stack, which may push it out of the tail. */
  private stderrHead = "";
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: SpawnOptions) {
    const { command, args, env, cwd, log } = options;
    this.child = spawn(command, [...args], {
      cwd,
      env: { ...minimalEnvironment(), ...env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: useGroups,
      windowsHide: true,
      shell: false,
    });
    const child = this.child;
    // Tracked before anything else can happen: from here on, the host's exit handler and its watchdog
    // (which outlives a host killed with SIGKILL) stop the server and its whole group.
    if (child.pid) options.processes.track(child, { group: useGroups });
    log.note(`started${child.pid ? ` pid ${child.pid}` : ""}: ${redactString([command, ...args].join(" "))} (cwd ${cwd})`);

    let onExit!: (e: ExitInfo) => void;
    this.exited = new Promise((resolve) => (onExit = resolve));
    let onClosed!: () => void;
    this.closed = new Promise((resolve) => (onClosed = resolve));

    child.on("error", (err: NodeJS.ErrnoException) => {
      if (this.exit) return;
      this.exit = { code: null, signal: null, spawnError: err };
      log.note(`could not start: ${err.message}`);
      onExit(this.exit);
      onClosed();
    });
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      log.note(`exited (${signal ? `signal ${signal}` : `code ${code}`})`);
      onExit(this.exit);
      // A server that dies may leave children behind in its group: take them down too. Until they are
      // gone the group stays tracked (the host's tracker forgets a child when it exits), so a host
      // killed meanwhile still has its watchdog kill them.
      if (useGroups && child.pid) {
        const untrack = options.processes.track({ pid: child.pid }, { group: true });
        void terminate(child.pid, { group: true, graceMs: 1000 }).finally(untrack);
      }
      // `close` waits for stdout/stderr to end, which a grandchild holding them open could delay forever.
      setTimeout(onClosed, 200).unref();
    });
    child.on("close", () => onClosed());
    child.stderr?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      const text = chunk.toString("utf8");
      if (this.stderrHead.length < STDERR_HEAD_CHARS) this.stderrHead = (this.stderrHead + text).slice(0, STDERR_HEAD_CHARS);
      this.stderrText = (this.stderrText + text).slice(-STDERR_TAIL_CHARS);
    });
    // A server that exits while we write must not crash the host with EPIPE.
    child.stdin?.on("error", (err) => log.note(`stdin: ${err.message}`));
    child.stderr?.on("error", () => {});
    child.stdout?.on("error", () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last non-empty lines of stderr, for error messages. */
  stderrTail(maxLines = 3): string {
    const lines = this.stderrText.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    return lines.slice(-maxLines).join(" | ").slice(-400);
  }

  /** The first line of stderr that says why the process failed (a thrown error, `fatal: …`), if there is one. */
  stderrCause(): string | undefined {
    return stderrCauseLine([this.stderrHead, this.stderrText]);
  }

  /**
   * Whether a process that ended during the `server/discover` probe may have ended because of it (a 2025
   * server built to exit on any request before `initialize`), and so is worth starting again for the 2025
   * handshake. Not when it could not be started, nor when it was killed from outside (SIGKILL, SIGTERM,
   * SIGINT, SIGHUP: the OOM killer, a user), nor when its stderr names another cause (a thrown error at
   * start-up that is not about the request): such a server dies again, whatever it is sent.
   */
  mayHaveEndedOnProbe(): boolean {
    const e = this.exit;
    if (!e || e.spawnError) return false;
    if (e.signal === "SIGKILL" || e.signal === "SIGTERM" || e.signal === "SIGINT" || e.signal === "SIGHUP") return false;
    const cause = this.stderrCause();
    return !cause || /initiali[sz]|server\/discover|method|request|protocol/i.test(cause);
  }

  /**
   * Why the process is gone, for people: `the server process exited with code 1: Error: DATABASE_URL is not set`
   * (the first error line of stderr), else with the last lines of stderr (`(stderr: …)`). `before`: what it
   * had not answered yet (`initialize`), for a process that never connected.
   */
  describeExit(before?: string): string {
    const e = this.exit;
    if (!e) return "the server process is still running";
    if (e.spawnError) {
      const cmd = JSON.stringify(this.options.command);
      if (e.spawnError.code === "ENOENT" && !existsSync(this.options.cwd)) return `could not start ${cmd}: its working folder ${this.options.cwd} does not exist`;
      if (e.spawnError.code === "ENOENT") return `could not start ${cmd}: command not found (is it installed and on PATH?)`;
      if (e.spawnError.code === "EACCES") return `could not start ${cmd}: permission denied`;
      return `could not start ${cmd}: ${e.spawnError.message}`;
    }
    const how = `${e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`}${before ? ` before answering ${before}` : ""}`;
    const cause = this.stderrCause();
    if (cause) return `the server process ${how}: ${cause}`;
    const tail = this.stderrTail();
    return `the server process ${how}${tail ? ` (stderr: ${tail})` : ""}`;
  }

  /**
   * Stop the server as the MCP spec asks: close its stdin, give it a moment to exit, then SIGTERM
   * and finally SIGKILL its whole process group.
   */
  stop(graceMs = 150): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.exit) {
        try {
          this.child.stdin?.end();
        } catch {
          /* already closed */
        }
        await Promise.race([this.exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
      }
      const pid = this.child.pid;
      if (pid && (useGroups || !this.exit)) await terminate(pid, { group: useGroups, graceMs: 1500 });
      await Promise.race([this.closed, new Promise((r) => setTimeout(r, 500).unref())]);
    })();
    return this.stopping;
  }
}
