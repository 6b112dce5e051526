/**
 * Hooks that misbehave: one that hangs and one that crashes, with failClosed off (a non-blocking error,
 * as in Claude Code) and on (the call is denied); output floods; a grandchild left running; a call
 * cancelled while its hook runs; a timeout longer than the host allows a handler.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp } from "../../helpers/project.js";
import { bash, hookAudit, hooksHost, node } from "./helpers.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (reparented where nobody reaps) is dead too.
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

// A hang is stopped at its timeout whatever the load; a crash must be seen crashing, so its bound is wide
// (a node start on a loaded machine can take more than a second).
const CASES = [
  ["hangs (stopped at its timeout)", bash("hang.sh"), /timed out after 0\.5 s and was stopped/, "timeout", 0.5],
  ["crashes", node("crash.mjs"), /exited with code 1: Error: the policy script has a bug/, "failed", 60],
  ["cannot start", "/no/such/hook.sh", /exited with code 127: .*No such file or directory/, "failed", 60],
] as const;

describe.each(CASES)("a PreToolUse hook that %s", (_case, command, message, outcome, timeout) => {
  test("by default: reported to the user, and the call goes on (as in Claude Code)", async () => {
    const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command, timeout }] }] } }, { permissionMode: "bypass" });
    const notices: string[] = [];
    h.host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok).toBe(true);
    expect(existsSync(h.project.path("ran"))).toBe(true);
    expect(notices.join("\n")).toMatch(message);
    expect(hookAudit(h.audit())[0]).toMatchObject({ name: "PreToolUse", outcome });
  });

  test("with failClosed (per hook, or hooksConfig.failClosed): the call is denied", async () => {
    const perHook = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command, timeout, failClosed: true }] }] } }, { permissionMode: "bypass" });
    const global = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command, timeout }] }] }, hooksConfig: { failClosed: true } }, { permissionMode: "bypass" });
    for (const h of [perHook, global]) {
      const r = await h.host.tools.call("run_command", { command: "touch ran" });
      expect(r).toMatchObject({ outcome: "denied" });
      expect(r.output).toMatch(message);
      expect(r.output).toMatch(/and fails closed$/);
      expect(existsSync(h.project.path("ran"))).toBe(false);
    }
    // A hook can opt out of the global setting.
    const optOut = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command, timeout, failClosed: false }] }] }, hooksConfig: { failClosed: true } }, { permissionMode: "bypass" });
    expect((await optOut.host.tools.call("run_command", { command: "echo ok" })).ok).toBe(true);
  });
});

test("JSON output with a wrongly typed field is a failure too (and fails closed when asked)", async () => {
  const bad = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } });
  const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `echo '${bad}'`, failClosed: true }] }] } }, { permissionMode: "bypass" });
  const r = await h.host.tools.call("run_command", { command: "echo x" });
  expect(r).toMatchObject({ outcome: "denied", output: expect.stringContaining('printed JSON that is not valid hook output: permissionDecision must be "allow", "deny", "ask" or "defer"') });
});

test("output is capped: a flood of stdout and stderr costs bounded memory, and the context the model gets is cut, saying so", async () => {
  const h = await hooksHost({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: `${node("flood.mjs")} >&2; exit 2` }] }] } }, { permissionMode: "bypass" });
  const r = await h.host.tools.call("run_command", { command: "echo small" });
  expect(r.ok).toBe(true);
  expect(Buffer.byteLength(r.output)).toBeLessThan(12_000);
  expect(r.output).toMatch(/\[output truncated: \d+ of \d+ bytes cut; the first \d+ bytes are shown\]/);
  // 3 MB on each stream, 1 MB of each kept: the rest is dropped and counted in the audit.
  expect(hookAudit(h.audit())[0].detail.droppedBytes).toBeGreaterThan(2 * 1024 * 1024);
});

describe("process groups", () => {
  test("a hook stopped at its timeout takes its grandchild with it", async () => {
    const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: bash("grandchild.sh", "gc.pid"), timeout: 5 }] }] } }, { permissionMode: "bypass" });
    // 5 s: long enough for the hook to start its grandchild and write its pid on a loaded machine.
    await h.host.tools.call("run_command", { command: "echo x" });
    const pid = Number(readFileSync(h.project.path("gc.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 60_000 });
  });

  test("what a hook leaves running when it exits is stopped too (nothing outlives the hook)", async () => {
    const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: bash("grandchild.sh", "gc.pid", "exit") }] }] } }, { permissionMode: "bypass" });
    expect((await h.host.tools.call("run_command", { command: "echo x" })).ok).toBe(true);
    const pid = Number(readFileSync(h.project.path("gc.pid"), "utf8"));
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 60_000 });
  });

  test("cancelling the call (Ctrl-C) stops its hook at once, grandchild included; closing the host stops an async hook", async () => {
    const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: bash("grandchild.sh", "gc.pid"), timeout: 30 }] }] } }, { permissionMode: "bypass" });
    const controller = new AbortController();
    const call = h.host.tools.call("run_command", { command: "echo x" }, { signal: controller.signal });
    await vi.waitFor(() => expect(existsSync(h.project.path("gc.pid"))).toBe(true), { timeout: 60_000 });
    controller.abort();
    expect(await call).toMatchObject({ outcome: "aborted" });
    const pid = Number(readFileSync(h.project.path("gc.pid"), "utf8"));
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 60_000 });
    expect(hookAudit(h.audit())[0]).toMatchObject({ outcome: "cancelled" });

    // An async hook does not hold the call; the host's close stops it.
    const a = await hooksHost({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: bash("grandchild.sh", "async.pid"), async: true, timeout: 30 }] }] } }, { permissionMode: "bypass" });
    const r = await a.host.tools.call("run_command", { command: "echo y" });
    expect(r.ok).toBe(true);
    await vi.waitFor(() => expect(existsSync(a.project.path("async.pid"))).toBe(true), { timeout: 60_000 });
    const asyncPid = Number(readFileSync(a.project.path("async.pid"), "utf8"));
    expect(alive(asyncPid)).toBe(true);
    await a.host.close();
    await vi.waitFor(() => expect(alive(asyncPid)).toBe(false), { timeout: 60_000 });
  });
});

test("a timeout longer than pluginTimeouts.callMs is cut to it (doctor says so), and the hook's failure stays the hook's", async () => {
  const h = await hooksHost({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: bash("hang.sh"), timeout: 60 }] }] }, pluginTimeouts: { callMs: 800 } }, { permissionMode: "bypass" });
  expect(h.host.problems.find((p) => p.level === "warning")?.message).toBe(
    "hooks.PreToolUse[0].hooks[0]: timeout 60 s is longer than pluginTimeouts.callMs (800 ms), which bounds PreToolUse hooks; it is stopped at 0.8 s (raise pluginTimeouts.callMs)",
  );
  const r = await h.host.tools.call("run_command", { command: "touch ran" });
  // Not "Plugin hooks failed in permission": the hook timed out, which by default lets the call go on.
  expect(r.ok).toBe(true);
  expect(h.host.problems.map((p) => p.message).join("\n")).not.toMatch(/failed in permission/);
});
