import { existsSync } from "node:fs";
import { defineTool, shellSubjects, terminate, z } from "../../core/index.js";

const DEFAULT_TIMEOUT_MS = 120_000;
/** Memory bound per stream; the gate caps what the model sees far below this. */
const MAX_CAPTURE = 8 * 1024 * 1024;
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  dropped = 0;
  push(b: Buffer): void {
    if (this.size >= MAX_CAPTURE) {
      this.dropped += b.length;
      return;
    }
    const room = MAX_CAPTURE - this.size;
    const part = b.length > room ? b.subarray(0, room) : b;
    this.dropped += b.length - part.length;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    const s = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped ? `${s}\n[${this.dropped} more bytes not captured]` : s;
  }
}

export const runCommandTool = defineTool({
  name: "run_command",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Bash"],
  description:
    "Run a shell command (bash) in the project folder and return its exit code, stdout and stderr. " +
    "The command has no stdin. It is stopped (with its whole process group) when it exceeds timeout_ms.",
  risk: "execute",
  // The gate's bound; the command's own timeout (timeout_ms) applies inside it.
  timeoutMs: 10 * 60_000,
  input: z.object({
    command: z.string().min(1).describe("The shell command line"),
    cwd: z.string().min(1).optional().describe("Folder to run in, relative to the project root (default: the root)"),
    timeout_ms: z.number().int().min(1).max(600_000).optional().describe("Stop the command after this many ms (default 120000)"),
  }),
  permissionSubject: (i) => shellSubjects(i.command),
  // The files the line writes as far as its text tells (redirections, tee, cp/mv, rm, git config, bash -c):
  // protected ones (the agent's config, .claude/, .git/…) are asked about in every mode. Loaded on first use.
  writes: async (i) => (await import("./_shell-writes.js")).shellWrites(i.command, i.cwd ?? "."),
  async run({ command, cwd = ".", timeout_ms = DEFAULT_TIMEOUT_MS }, { workspace, signal, processes, env }) {
    const dir = workspace.resolve(cwd);
    // Loaded on first use: `agent tools` and `agent --version` never pay for it.
    const { spawn } = await import("node:child_process");
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const child = spawn(SHELL, ["-c", command], {
        cwd: dir,
        // Config `env` (Claude Code's settings `env` too) over the host's own environment.
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so a timeout or Ctrl-C stops everything it started.
        detached: true,
      });
      const untrack = processes.track(child, { group: true });
      const out = new Capture();
      const err = new Capture();
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => err.push(b));
      let stopped: "timeout" | "aborted" | undefined;
      const stop = (why: "timeout" | "aborted") => {
        if (stopped || child.exitCode !== null) return;
        stopped = why;
        if (child.pid) void terminate(child.pid, { group: true, graceMs: 1000 });
      };
      const timer = setTimeout(() => stop("timeout"), timeout_ms);
      const onAbort = () => stop("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("error", (e) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        untrack();
        reject(new Error(`could not start the shell: ${e.message}`));
      });
      child.on("close", (code, sig) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        untrack();
        const ms = Date.now() - started;
        const status =
          stopped === "timeout"
            ? `timed out after ${timeout_ms} ms and was stopped`
            : stopped === "aborted"
              ? "cancelled"
              : sig
                ? `killed by ${sig}`
                : `exit code ${code}`;
        const stdout = out.text();
        const stderr = err.text();
        const parts = [`${status} (${ms} ms)`];
        if (stdout) parts.push(`--- stdout ---\n${stdout.replace(/\n$/, "")}`);
        if (stderr) parts.push(`--- stderr ---\n${stderr.replace(/\n$/, "")}`);
        if (!stdout && !stderr) parts.push("(no output)");
        resolve({ output: parts.join("\n"), isError: code !== 0 || !!stopped, structured: { exitCode: code, signal: sig, timedOut: stopped === "timeout", stdout, stderr } });
      });
    });
  },
});
