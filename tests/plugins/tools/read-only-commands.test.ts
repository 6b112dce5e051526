/**
 * run_command lines that only read (git's read-only subcommands, input filters) run without a question in a
 * trusted folder, in default and plan modes, as Claude Code runs them: the context lines of Anthropic's /commit
 * (`git status`, `git diff HEAD`, `git branch --show-current`, `git log --oneline -10`) among them. Everything
 * an attacker would slip into such a line is not read-only, and a folder nobody trusted gets no such pass
 * (its .git/config could make `git diff` run a program).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { type Host, type PermissionMode } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { shellSubjects } from "../../../kit/index.js";
import toolsPlugin from "../../../plugins/tools/index.js";
import { isReadOnlyLine } from "../../../plugins/tools/_read-only.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";

afterAll(cleanupTemp);
const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

const READ_ONLY = [
  "git status",
  "git diff HEAD",
  "git branch --show-current",
  "git log --oneline -10",
  "git --no-pager log -p -- src/a.txt",
  "git diff --cached --stat | head -20",
  "git show HEAD:src/a.txt",
  "git log --format=%H | wc -l",
  "git branch -a",
  "git tag --list 'v*'",
  "git remote -v",
  "git rev-parse --abbrev-ref HEAD",
  "git ls-files | grep test",
  "pwd",
];

const NOT_READ_ONLY = [
  "git status > out.txt",
  "git log --output=out.txt",
  "git diff --output out.txt",
  "git diff --no-index /etc/passwd a",
  "git diff --ext-diff",
  "git show --textconv HEAD:a",
  "git diff -Oorder.txt",
  "git -c core.pager=sh log",
  "git --git-dir=/tmp/x log",
  "git --work-tree=/ status",
  "git branch evil",
  "git branch -D main",
  "git tag v1",
  "git remote add x https://example.com",
  "git checkout .",
  "git stash",
  "git commit -m x",
  "git log | sh",
  "git log | xargs rm",
  "git ls-files -z | xargs cat",
  "git status; rm -rf src",
  "git status && touch x",
  "FOO=1 git status",
  "GIT_EXTERNAL_DIFF=./x.sh git diff",
  "git log $(rm -rf src)",
  "git log `id`",
  "env git status",
  "/usr/bin/git status",
  "git blame ../outside.txt",
  "git show ~/x",
  "cat /etc/passwd",
  "cat a.txt",
  "head -n 5 a.txt",
  "grep -r secret .",
  "grep x a.txt",
  "sort -o out.txt",
  "bash -c 'git status'",
  "eval git status",
  "git log *",
];

describe("which lines only read", () => {
  test.each(READ_ONLY)("%s: read-only", async (line) => {
    expect(isReadOnlyLine((await shellSubjects(line)) as string[])).toBe(true);
  });
  test.each(NOT_READ_ONLY)("%s: not read-only", async (line) => {
    expect(isReadOnlyLine((await shellSubjects(line)) as string[])).toBe(false);
  });
});

async function repoHost(trust: boolean, permissionMode: PermissionMode = "default") {
  const p = tempProject({ "src/a.txt": "a\n" });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: p.dir, stdio: "ignore" });
  git("init", "-q");
  git("add", ".");
  git("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init");
  const host = await createHost({ cwd: p.dir, userConfigDir: false, loadConfigFiles: false, audit: false, trust, permissionMode, builtins: [{ name: "tools", load: async () => toolsPlugin }] });
  hosts.push(host);
  return { p, host };
}

describe("through the gate, headless", () => {
  test("a trusted folder: /commit's context lines run; a line that writes still needs approval", async () => {
    const { p, host } = await repoHost(true);
    for (const command of ["git status", "git diff HEAD", "git branch --show-current", "git log --oneline -10"]) {
      expect(await host.tools.call("run_command", { command }), command).toMatchObject({ ok: true });
    }
    const write = await host.tools.call("run_command", { command: "git log --output=log.txt" });
    expect(write).toMatchObject({ outcome: "denied", output: expect.stringContaining("needs approval") });
    expect(existsSync(p.path("log.txt"))).toBe(false);
  });

  test("plan mode: read-only lines run, others are refused", async () => {
    const { host } = await repoHost(true, "plan");
    expect(await host.tools.call("run_command", { command: "git status" })).toMatchObject({ ok: true });
    expect(await host.tools.call("run_command", { command: "touch x" })).toMatchObject({ outcome: "denied" });
  });

  test("a deny rule still wins over a read-only line", async () => {
    const p = tempProject({ "a.txt": "a\n" });
    const host = await createHost({ cwd: p.dir, userConfigDir: false, loadConfigFiles: false, audit: false, trust: true, config: { permissions: { deny: ["run_command(git log:*)"] } }, builtins: [{ name: "tools", load: async () => toolsPlugin }] });
    hosts.push(host);
    expect(await host.tools.call("run_command", { command: "git log" })).toMatchObject({ outcome: "denied", output: expect.stringContaining("run_command(git log:*)") });
  });

  test("a folder nobody trusted: git status asks (denied headless)", async () => {
    const { host } = await repoHost(false);
    expect(await host.tools.call("run_command", { command: "git status" })).toMatchObject({ outcome: "denied" });
  });
});
