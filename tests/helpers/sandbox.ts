/**
 * For the sandbox's tests: whether bubblewrap works here. Where it does not, the tests that need it are
 * replaced by one that checks the sandbox says why, and that one FAILS when `CI` is set (CI installs
 * bubblewrap: a CI run without it must not pass quietly).
 */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { type CommandSandbox, type Workspace } from "../../core/index.js";
import { type SandboxStatus } from "../../core/embed.js";
import { createCommandSandbox } from "../../sandbox/index.js";

export async function sandboxHere(): Promise<SandboxStatus> {
  const ws = { root: "/", roots: ["/"], readRoots: [], resolve: (p: string) => p, relative: (p: string) => p } as Workspace;
  return createCommandSandbox({}, ws).status();
}

/** Where bwrap does not work: one test in place of the suite, failing in CI. */
export function noSandboxTest(st: SandboxStatus): void {
  test("bubblewrap works here (CI installs it)", () => {
    expect(st.kind).toBe("none");
    expect(st.reason).toBeTruthy();
    if (process.env.CI) expect.fail(`CI must run the sandbox tests, but bwrap does not work: ${st.reason}`);
  });
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  explained?: string;
}

/** Run a bash line through `sandbox.wrap` as run_command does, to its end. */
export async function runWrapped(sandbox: CommandSandbox, command: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  const w = await sandbox.wrap({ file: "/bin/bash", args: ["-c", command], cwd, env });
  return new Promise((resolve, reject) => {
    const child = spawn(w.file, w.args, { cwd: w.cwd, env: w.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const explained = w.explain({ stdout, stderr, exitCode: code });
      w.dispose();
      resolve({ code, signal, stdout, stderr, ...(explained ? { explained } : {}) });
    });
  });
}
