/**
 * A hook whose output was meant to be JSON (it starts with `{` after whitespace) but does not parse:
 * cut short (`{"decision": "block", "reason": "x`, `{"hookSpecificOutput":`) or with junk after it.
 * With failClosed the call is denied (the prompt blocked), saying the output was not valid JSON; a
 * policy's lost `deny` never lets the call through. Without failClosed it is plain text, as in Claude
 * Code (context for UserPromptSubmit, ignored for PreToolUse), and reported as the hook's failure.
 * Real hook scripts (tests/fixtures/hooks/record.sh) print the output.
 */
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp } from "../../helpers/project.js";
import { bash, hook, hookAudit, hooksHost, readLog } from "./helpers.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const BROKEN = [
  ["a block cut short in its reason", '{"decision": "block", "reason": "x'],
  ["hookSpecificOutput cut short", '{"hookSpecificOutput":'],
  ["a deny cut short, after blank lines and spaces", '\n\n   {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"'],
  ["a whole deny with junk after it", '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}} trailing'],
] as const;

describe.each(BROKEN)("a PreToolUse hook printing %s", (_case, stdout) => {
  test("with failClosed: the call is denied, nothing runs, the reason says the output was not valid JSON; audited as failed", async () => {
    const h = await hooksHost({ hooks: hook("PreToolUse", bash("record.sh", "log", 0, "", stdout), { failClosed: true }) }, { permissionMode: "bypass" });
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r).toMatchObject({ ok: false, outcome: "denied", error: { code: "E_TOOL_DENIED" } });
    expect(r.output).toContain('printed output that starts with "{" but is not valid JSON');
    expect(r.output).toMatch(/and fails closed$/);
    expect(existsSync(h.project.path("ran"))).toBe(false);
    // The hook did run (it read the call on stdin).
    expect(readLog(h.project.path("log")).inputs[0]).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash" });
    expect(hookAudit(h.audit())[0]).toMatchObject({ name: "PreToolUse", outcome: "failed", error: expect.stringContaining("not valid JSON") });
    // hooksConfig.failClosed does the same for every hook.
    const global = await hooksHost({ hooks: hook("PreToolUse", bash("record.sh", "log", 0, "", stdout)), hooksConfig: { failClosed: true } }, { permissionMode: "bypass" });
    expect(await global.host.tools.call("run_command", { command: "touch ran" })).toMatchObject({ outcome: "denied" });
    expect(existsSync(global.project.path("ran"))).toBe(false);
  });

  test("without failClosed: plain text, as in Claude Code, so the call goes on; the user is told the hook's output was not valid JSON", async () => {
    const h = await hooksHost({ hooks: hook("PreToolUse", bash("record.sh", "log", 0, "", stdout)) }, { permissionMode: "bypass" });
    const notices: string[] = [];
    h.host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok).toBe(true);
    expect(existsSync(h.project.path("ran"))).toBe(true);
    expect(notices.join("\n")).toContain('printed output that starts with "{" but is not valid JSON');
  });
});

test("output that is not meant as JSON (it does not start with {) is plain text, failClosed or not: ignored for PreToolUse, no failure", async () => {
  for (const stdout of ["deny please", '["deny"]', 'ok {"decision": "block"']) {
    const h = await hooksHost({ hooks: hook("PreToolUse", bash("record.sh", "log", 0, "", stdout), { failClosed: true }) }, { permissionMode: "bypass" });
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok, stdout).toBe(true);
    expect(hookAudit(h.audit())[0]).toMatchObject({ outcome: "ok" });
  }
});

test("a whole JSON deny still denies (the broken cases above are not just every JSON refused)", async () => {
  const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "policy says no" } });
  const h = await hooksHost({ hooks: hook("PreToolUse", bash("record.sh", "log", 0, "", deny), { failClosed: true }) }, { permissionMode: "bypass" });
  const r = await h.host.tools.call("run_command", { command: "touch ran" });
  expect(r).toMatchObject({ outcome: "denied", output: expect.stringContaining("policy says no") });
  expect(r.output).not.toContain("not valid JSON");
});

describe("UserPromptSubmit printing a block cut short", () => {
  const stdout = '{"decision": "block", "reason": "no secrets';

  test("with failClosed: the prompt is blocked, the model never asked", async () => {
    const h = await hooksHost({ hooks: hook("UserPromptSubmit", bash("record.sh", "log", 0, "", stdout), { failClosed: true }) }, { model: [{ text: "should not happen" }] });
    const r = await h.host.run("my password is hunter2");
    expect(r).toMatchObject({ ok: false, reason: "stopped", turns: 0 });
    expect(JSON.stringify(r)).toContain("not valid JSON");
    expect(h.model!.requests).toHaveLength(0);
  });

  test("without failClosed: as in Claude Code, the text is context that goes with the prompt, and the run goes on", async () => {
    const h = await hooksHost({ hooks: hook("UserPromptSubmit", bash("record.sh", "log", 0, "", stdout)) }, { model: [{ text: "answered" }] });
    const r = await h.host.run("fix the build");
    expect(r).toMatchObject({ ok: true, text: "answered" });
    expect(h.model!.requests[0]!.messages[0]).toEqual({ role: "user", content: `fix the build\n\n<context from="hooks">\n${stdout}\n</context>` });
  });
});
