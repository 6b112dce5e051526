import { existsSync } from "node:fs";
import path from "node:path";
import { defineTool, mentionsProtectedName, z, type Workspace } from "../../core/index.js";
import { terminate } from "../../kit/index.js";
import { shellSubjects } from "../../kit/index.js";
import { HEAD_TAIL_BYTES, HeadTailCapture } from "./_head-tail.js";
import { scriptFiles } from "./_script-files.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
/** Room for both streams' head and tail, their notes and the status lines, so the gate never cuts the tail. */
const OUTPUT_BUDGET = 4 * HEAD_TAIL_BYTES + 4096;


/**
 * The files the line's text writes, absolute. The call runs, so the gate allowed each protected one among
 * them (it asks about those in every mode): the sandbox lets exactly those through. Uncertain targets never.
 */
async function protectedWrites(command: string, cwd: string, workspace: Workspace): Promise<string[]> {
  // A line that names no protected file cannot have had such a write approved.
  if (!mentionsProtectedName(command)) return [];
  const writes = await (await import("./_shell-writes.js")).shellWrites(command, cwd, scriptFiles(workspace, cwd));
  return writes.filter((w) => !w.uncertain).map((w) => path.resolve(workspace.root, w.cwd ?? ".", w.path));
}

export const runCommandTool = defineTool({
  name: "run_command",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Bash"],
  description:
    "Run a shell command (bash) in the project folder and return its exit code, stdout and stderr. " +
    "The command has no stdin; of a long output you get the first and last 32 KiB of each stream. It is stopped (with its whole process group) when it exceeds timeout_ms. " +
    "It runs in an OS sandbox (unless config turns it off): it may write only the workspace and a private /tmp, " +
    "has no network unless config allows hosts, and cannot read credential folders. When the output says the " +
    "sandbox refused something, ask the user instead of working around it.",
  risk: "execute",
  // The gate's bound; the command's own timeout (timeout_ms) applies inside it.
  timeoutMs: 10 * 60_000,
  // Its own capture already bounds the output (head and tail of each stream); a config override still wins.
  maxOutputBytes: OUTPUT_BUDGET,
  input: z.object({
    command: z.string().min(1).describe("The shell command line"),
    cwd: z.string().min(1).optional().describe("Folder to run in, relative to the project root (default: the root)"),
    timeout_ms: z.number().int().min(1).max(600_000).optional().describe("Stop the command after this many ms (default 120000)"),
  }),
  // Script files the line sources or runs are read, so their commands meet deny rules too.
  permissionSubject: (i, { workspace }) => shellSubjects(i.command, { files: scriptFiles(workspace, i.cwd) }),
  // The files the line writes as far as its text tells (redirections, tee, cp/mv, rm, git config, bash -c):
  // protected ones (the agent's config, .claude/, .git/…) are asked about in every mode. Loaded on first use.
  writes: async (i, { workspace }) => (await import("./_shell-writes.js")).shellWrites(i.command, i.cwd ?? ".", scriptFiles(workspace, i.cwd)),
  async run({ command, cwd = ".", timeout_ms = DEFAULT_TIMEOUT_MS }, { workspace, signal, processes, env, sandbox, log }) {
    const dir = workspace.resolve(cwd);
    // Loaded on first use: `agent tools` and `agent --version` never pay for it.
    const { spawn } = await import("node:child_process");
    // Below the gate: the call was permitted (and audited) as it is; the sandbox bounds what it can do.
    // Config `env` (Claude Code's settings `env` too) over the host's own environment.
    const approvedWrites = await protectedWrites(command, cwd, workspace);
    const wrapped = await sandbox.wrap({ file: SHELL, args: ["-c", command], cwd: dir, env: { ...process.env, ...env }, approvedWrites });
    // Once per session: the user sees it as a notice, the model in the output.
    if (wrapped.notice) log.warn(wrapped.notice);
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const child = spawn(wrapped.file, wrapped.args, {
        cwd: wrapped.cwd,
        env: wrapped.env,
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so a timeout or Ctrl-C stops everything it started.
        detached: true,
      });
      const untrack = processes.track(child, { group: true });
      const out = new HeadTailCapture();
      const err = new HeadTailCapture();
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
        wrapped.dispose();
        reject(new Error(`could not start the shell: ${e.message}`));
      });
      child.on("close", (code, sig) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        untrack();
        wrapped.dispose();
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
        const refused = wrapped.explain({ stdout, stderr, exitCode: code });
        if (refused) parts.push(refused);
        if (wrapped.notice) parts.push(wrapped.notice);
        const structured = { exitCode: code, signal: sig, timedOut: stopped === "timeout", stdout, stderr, sandbox: wrapped.kind, ...(refused ? { refused } : {}) };
        resolve({ output: parts.join("\n"), isError: code !== 0 || !!stopped, structured });
      });
    });
  },
});
