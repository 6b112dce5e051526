/**
 * One command hook as a child process: bash (else sh) `-c command`, or `command args…` without a
 * shell (Claude Code's exec form); the event's JSON on stdin; its own process group, tracked by the
 * host (stopped on exit, Ctrl-C, SIGTERM, or a crash of the host); stopped with everything in its group
 * at its timeout, when the call or run it belongs to is cancelled, and when it exits (so nothing it
 * started outlives it); stdout and stderr captured up to a bound. With config `sandbox.hooks`, inside the
 * OS sandbox run_command uses (the hook's own choice to opt in: hooks often write logs outside the project).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { type CommandSandbox, type ProcessTracker, type SandboxedSpawn } from "../../core/index.js";
import { terminate } from "../../kit/index.js";

/** Memory bound per stream; what reaches the model or the user is cut far below this. */
const MAX_CAPTURE = 1024 * 1024;
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

export interface RunOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** The process could not be started. */
  spawnError?: string;
  stdout: string;
  stderr: string;
  /** Bytes beyond the capture bound, per stream. */
  dropped: number;
  durationMs: number;
}

export interface RunSpec {
  command: string;
  args?: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  /**
   * When (performance.now()) the timeout starts counting; default: now. The dispatcher's start, so what it
   * does before the spawn (the transcript, a sandbox, the spawn itself, slow on a loaded machine) is
   * within the timeout, which must end within the host's bound on the handler waiting for it.
   */
  since?: number;
  processes: ProcessTracker;
  signal?: AbortSignal;
  /** Run it inside this sandbox (config `sandbox.hooks`); absent: as it is. */
  sandbox?: CommandSandbox;
}

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;
  push(b: Buffer): void {
    const room = MAX_CAPTURE - this.size;
    if (room <= 0) {
      this.dropped += b.length;
      return;
    }
    const part = b.length > room ? b.subarray(0, room) : b;
    this.dropped += b.length - part.length;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** `${CLAUDE_PROJECT_DIR}` (and a plugin hook's `${CLAUDE_PLUGIN_ROOT}` …) in exec form (no shell expands it there). */
function placeholders(s: string, env: NodeJS.ProcessEnv): string {
  return s.replace(/\$\{(CLAUDE_PROJECT_DIR|AGENT_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|PLUGIN_ROOT|PLUGIN_DATA)\}/g, (_m, name: string) => env[name] ?? "");
}

/** The program and arguments of a hook: exec form as given, else the shell. */
function programOf(spec: RunSpec): { file: string; args: string[] } {
  if (spec.args) return { file: placeholders(spec.command, spec.env), args: spec.args.map((a) => placeholders(a, spec.env)) };
  return { file: SHELL, args: ["-c", spec.command] };
}

export async function runCommandHook(spec: RunSpec): Promise<RunOutcome> {
  const started = performance.now();
  const program = programOf(spec);
  let wrapped: SandboxedSpawn | undefined;
  try {
    wrapped = spec.sandbox ? await spec.sandbox.wrap({ ...program, cwd: spec.cwd, env: spec.env }) : undefined;
  } catch (err) {
    // `sandbox.required` with no sandbox here: the hook does not run, and says why.
    const spawnError = err instanceof Error ? err.message : String(err);
    return { exitCode: null, signal: null, timedOut: false, aborted: false, spawnError, stdout: "", stderr: "", dropped: 0, durationMs: performance.now() - started };
  }
  try {
    return await spawnHook(spec, wrapped ?? { ...program, cwd: spec.cwd, env: spec.env }, started);
  } finally {
    wrapped?.dispose();
  }
}

function spawnHook(spec: RunSpec, run: { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }, started: number): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const out = new Capture();
    const err = new Capture();
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const finish = (o: Partial<RunOutcome>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: null,
        signal: null,
        timedOut,
        aborted,
        stdout: out.text(),
        stderr: err.text(),
        dropped: out.dropped + err.dropped,
        durationMs: performance.now() - started,
        ...o,
      });
    };
    const child = spawn(run.file, run.args, { cwd: run.cwd, env: run.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const untrack = spec.processes.track(child, { group: true });
    const stopGroup = () => {
      if (child.pid) void terminate(child.pid, { group: true, graceMs: 300 });
    };
    // At its timeout the hook is over: its group is stopped in the background, and the outcome is given
    // now, not when the pipes close (which on a loaded machine could come after the host's own bound on
    // the handler waiting for it, turning "the hook timed out" into "the hooks plugin failed").
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
      finish({});
    }, Math.max(0, spec.timeoutMs - (performance.now() - (spec.since ?? started))));
    const onAbort = () => {
      aborted = true;
      stopGroup();
    };
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", (e) => {
      untrack();
      finish({ spawnError: e.message });
    });
    // What the hook left running in its group holds our pipes open: stop it when the hook exits.
    child.on("exit", stopGroup);
    child.on("close", (code, sig) => {
      untrack();
      finish({ exitCode: code, signal: sig });
    });
    // A hook that never reads its input (or exits first) must not fail the write.
    child.stdin.on("error", () => {});
    child.stdin.end(spec.stdin);
  });
}
