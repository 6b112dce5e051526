/**
 * Tool events with real hook scripts (bash and Node) through the real gate: what a script gets on
 * stdin (Claude Code's fields and names), and what its exit code and JSON do.
 */
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import type { AgentEvent, PermissionRequest } from "../../../core/index.js";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp } from "../../helpers/project.js";
import { bash, hook, hookAudit, hooksHost, node, readLog } from "./helpers.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const RECORDERS = [
  ["bash", (...a: (string | number)[]) => bash("record.sh", ...a)],
  ["node", (...a: (string | number)[]) => node("record.mjs", ...a)],
] as const;

const json = (o: unknown) => JSON.stringify(o);

describe.each(RECORDERS)("PreToolUse (%s script)", (_lang, record) => {
  test("gets Claude Code's input: common fields, tool_name Bash, tool_input, tool_use_id, the project variables and config env", async () => {
    // Hooks run in the project root: "log" is a file there.
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log"), {}, "Bash"), env: { HOOK_GREETING: "hi" } }, { permissionMode: "bypass" });
    const r = await h.host.tools.call("run_command", { command: "echo one", timeout_ms: 5000 }, { callId: "toolu_01" });
    expect(r).toMatchObject({ ok: true });
    const { inputs, env } = readLog(h.project.path("log"));
    expect(inputs).toEqual([
      {
        session_id: h.host.sessionId,
        transcript_path: expect.stringMatching(/\.agent\/transcripts\/.+\.jsonl$/),
        cwd: h.project.dir,
        permission_mode: "bypassPermissions",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "echo one", timeout: 5000 },
        tool_use_id: "toolu_01",
      },
    ]);
    expect(existsSync(inputs[0].transcript_path)).toBe(true);
    expect(env).toEqual([`${h.project.dir}|${h.project.dir}|hi`]);
  });

  test("file tools get absolute file_path; exit 0 with no output leaves the decision to the rules", async () => {
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log"), {}, "Read|Write") });
    h.project.write("a.txt", "A\n");
    const read = await h.host.tools.call("read_file", { path: "a.txt", limit: 1 });
    expect(read.ok).toBe(true);
    // A write needs approval headless: the hook said nothing, so the mode decides (denied, with the rule to add).
    const write = await h.host.tools.call("write_file", { path: "b.txt", content: "B" });
    expect(write).toMatchObject({ outcome: "denied", output: expect.stringContaining("needs approval") });
    const { inputs } = readLog(h.project.path("log"));
    expect(inputs.map((i) => [i.tool_name, i.tool_input])).toEqual([
      ["Read", { file_path: h.project.path("a.txt"), limit: 1 }],
      ["Write", { file_path: h.project.path("b.txt"), content: "B" }],
    ]);
  });

  test("exit 2 denies the call with stderr as the reason; the tool does not run", async () => {
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log", 2, "Blocked: not today")) }, { permissionMode: "bypass" });
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r).toMatchObject({ outcome: "denied", output: "Denied by a plugin: PreToolUse hook: Blocked: not today" });
    expect(existsSync(h.project.path("ran"))).toBe(false);
    expect(h.audit().find((x) => x.kind === "call")).toMatchObject({ decision: "deny", by: "plugin:hooks" });
    expect(hookAudit(h.audit())[0]).toMatchObject({ name: "PreToolUse", outcome: "blocked", detail: { exitCode: 2, decision: "deny", command: expect.stringContaining("record") } });
  });

  test("another exit code is a non-blocking error: shown to the user, and the call goes on", async () => {
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log", 1, "jq: command not found")) }, { permissionMode: "bypass" });
    const notices: string[] = [];
    h.host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok).toBe(true);
    expect(existsSync(h.project.path("ran"))).toBe(true);
    expect(notices.join("\n")).toMatch(/PreToolUse hook ".*" \(hooks\.PreToolUse\[0\]\.hooks\[0\]\) exited with code 1: jq: command not found/);
    expect(hookAudit(h.audit())[0]).toMatchObject({ outcome: "failed", detail: { exitCode: 1 } });
  });

  test("JSON allow skips the question the mode would ask (headless, it would be denied); its additionalContext goes with the result", async () => {
    const allow = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "safe", additionalContext: "checked by policy v2" } });
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log", 0, "", allow)) });
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/<context from="hooks">\nchecked by policy v2\n<\/context>$/);
    expect(existsSync(h.project.path("ran"))).toBe(true);
    expect(h.audit().find((x) => x.kind === "call")).toMatchObject({ decision: "allow", by: "plugin:hooks" });
  });

  test("JSON ask forces a question even in bypass mode (headless: denied); JSON deny denies with its reason", async () => {
    const ask = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "are you sure?" } });
    const h = await hooksHost({ hooks: hook("PreToolUse", record("log", 0, "", ask)) }, { permissionMode: "bypass" });
    expect(await h.host.tools.call("run_command", { command: "touch ran" })).toMatchObject({ outcome: "denied", output: expect.stringContaining("needs approval and there is no terminal") });
    const deny = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "never" } });
    const d = await hooksHost({ hooks: hook("PreToolUse", record("log", 0, "", deny)) }, { permissionMode: "bypass" });
    expect(await d.host.tools.call("run_command", { command: "touch ran" })).toMatchObject({ outcome: "denied", output: "Denied by a plugin: PreToolUse hook: never" });
    expect(existsSync(h.project.path("ran")) || existsSync(d.project.path("ran"))).toBe(false);
  });
});

test("an asked question shows the hook's reason, and the older top-level decision (approve / block) still works", async () => {
  const asked: PermissionRequest[] = [];
  const ask = json({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check the branch" } });
  const h = await hooksHost({ hooks: hook("PreToolUse", node("record.mjs", "log", 0, "", ask)) }, {
    permissionMode: "bypass",
    askPermission: async (q) => (asked.push(q as PermissionRequest), "allow_once"),
  });
  expect((await h.host.tools.call("run_command", { command: "echo ok" })).ok).toBe(true);
  expect(asked.map((q) => q.reason)).toEqual(["plugin:hooks: PreToolUse hook: check the branch"]);
  const legacy = await hooksHost({ hooks: hook("PreToolUse", node("record.mjs", "log", 0, "", json({ decision: "block", reason: "old style" }))) }, { permissionMode: "bypass" });
  expect(await legacy.host.tools.call("run_command", { command: "echo ok" })).toMatchObject({ outcome: "denied", output: "Denied by a plugin: PreToolUse hook: old style" });
});

describe("PostToolUse and PostToolUseFailure", () => {
  test("PostToolUse gets tool_response in Claude Code's Bash shape; exit 2 and JSON feedback reach the model next to the result", async () => {
    const feedback = json({ decision: "block", reason: "lint found 2 problems", hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "the file is generated" } });
    const h = await hooksHost(
      {
        hooks: {
          PostToolUse: [
            { matcher: "Bash", hooks: [{ type: "command", command: bash("record.sh", "log", 2, "formatter complained") }] },
            { matcher: "run_command", hooks: [{ type: "command", command: node("record.mjs", "log2", 0, "", feedback) }] },
          ],
        },
      },
      { permissionMode: "bypass" },
    );
    const r = await h.host.tools.call("run_command", { command: "echo out; echo err >&2" }, { callId: "c1" });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/^exit code 0/);
    expect(r.output).toContain('<context from="hooks">\nformatter complained\n\nlint found 2 problems\nthe file is generated\n</context>');
    const [input] = readLog(h.project.path("log")).inputs;
    expect(input).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_use_id: "c1", tool_response: { stdout: "out\n", stderr: "err\n", interrupted: false, isImage: false } });
    expect(typeof input.duration_ms).toBe("number");
  });

  test("updatedToolOutput replaces what the model gets (capped like any output)", async () => {
    const replace = json({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: { stdout: "[redacted]", stderr: "", interrupted: false, isImage: false } } });
    const h = await hooksHost({ hooks: hook("PostToolUse", node("record.mjs", "log", 0, "", replace)) }, { permissionMode: "bypass" });
    expect(await h.host.tools.call("run_command", { command: "echo secret" })).toMatchObject({ ok: true, output: "[redacted]" });
  });

  test("PostToolUseFailure fires for a tool that threw and for a command that failed, with Claude Code's error text", async () => {
    const ctx = json({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "try list_files first" } });
    const h = await hooksHost({ hooks: hook("PostToolUseFailure", node("record.mjs", "log", 0, "", ctx)) }, { permissionMode: "bypass" });
    const missing = await h.host.tools.call("read_file", { path: "missing.txt" });
    expect(missing).toMatchObject({ ok: false, outcome: "error" });
    expect(missing.output).toContain("missing.txt does not exist");
    expect(missing.output).toContain("try list_files first");
    const failed = await h.host.tools.call("run_command", { command: "echo nope >&2; exit 3" });
    expect(failed.outcome).toBe("error");
    const { inputs } = readLog(h.project.path("log"));
    expect(inputs.map((i) => [i.hook_event_name, i.tool_name, i.is_interrupt])).toEqual([
      ["PostToolUseFailure", "Read", false],
      ["PostToolUseFailure", "Bash", false],
    ]);
    expect(inputs[0].error).toContain("missing.txt does not exist");
    expect(inputs[1].error).toBe("Exit code 3\nnope");
    // A denied call never ran: no failure hook.
    const denied = await hooksHost({ hooks: hook("PostToolUseFailure", node("record.mjs", "log", 0)) });
    await denied.host.tools.call("run_command", { command: "echo x" });
    expect(readLog(denied.project.path("log")).inputs).toEqual([]);
  });
});

describe("PermissionRequest and Notification", () => {
  test("headless, a PermissionRequest hook answers what the mode would ask; it gets permission_suggestions", async () => {
    const allow = json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
    const h = await hooksHost({ hooks: hook("PermissionRequest", node("record.mjs", "log", 0, "", allow), {}, "Bash") });
    const r = await h.host.tools.call("run_command", { command: "touch ran" });
    expect(r.ok).toBe(true);
    const [input] = readLog(h.project.path("log")).inputs;
    expect(input).toMatchObject({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "touch ran" },
      permission_suggestions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch ran" }], behavior: "allow", destination: "session" }],
    });
    expect(input.tool_use_id).toBeUndefined();
  });

  test("deny (JSON or exit 2) denies; an allow does not answer what an ask rule asks (the user is asked; headless: denied)", async () => {
    const deny = json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "not on Fridays" } } });
    const d = await hooksHost({ hooks: hook("PermissionRequest", bash("record.sh", "log", 0, "", deny)) });
    expect(await d.host.tools.call("run_command", { command: "echo x" })).toMatchObject({ outcome: "denied", output: expect.stringContaining("not on Fridays") });
    const e2 = await hooksHost({ hooks: hook("PermissionRequest", bash("record.sh", "log", 2, "exit two")) });
    expect(await e2.host.tools.call("run_command", { command: "echo x" })).toMatchObject({ outcome: "denied", output: expect.stringContaining("exit two") });
    const allow = json({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } } });
    const a = await hooksHost({ hooks: hook("PermissionRequest", bash("record.sh", "log", 0, "", allow)), permissions: { ask: ["Bash(touch:*)"] } }, { permissionMode: "bypass" });
    expect(await a.host.tools.call("run_command", { command: "touch ran" })).toMatchObject({ outcome: "denied" });
    expect(existsSync(a.project.path("ran"))).toBe(false);
    expect(a.audit().find((x) => x.kind === "call")).toMatchObject({ decision: "deny", by: "Bash(touch:*)" });
  });

  test("Notification runs (notification_type permission_prompt) when the user is asked in a terminal", async () => {
    const h = await hooksHost({ hooks: hook("Notification", node("record.mjs", "log"), {}, "permission_prompt") }, { askPermission: async () => "deny" });
    const done = new Promise<void>((resolve) => h.host.on((e: AgentEvent) => void (e.type === "permission_request" && setTimeout(resolve, 0))));
    await h.host.tools.call("run_command", { command: "echo x" });
    await done;
    await vi.waitFor(() => expect(readLog(h.project.path("log")).inputs).toHaveLength(1), { timeout: 60_000 });
    expect(readLog(h.project.path("log")).inputs[0]).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt", message: "agent needs your permission to use run_command(echo x)", title: "Permission needed" });
  });
});

test("transcript_path holds the calls as Claude Code records them: Bash with command, Read with an absolute file_path", async () => {
  const { readFileSync } = await import("node:fs");
  const h = await hooksHost(
    { hooks: hook("Stop", bash("record.sh", "stop-log")) },
    {
      permissionMode: "bypass",
      model: [{ toolCalls: [{ id: "t1", name: "run_command", input: { command: "echo hi" } }, { id: "t2", name: "read_file", input: { path: "a.txt" } }] }, { text: "done" }],
    },
  );
  h.project.write("a.txt", "A\n");
  await h.host.run("go");
  const [stop] = readLog(h.project.path("stop-log")).inputs;
  const lines = readFileSync(String(stop.transcript_path), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const uses = lines.flatMap((l) => (Array.isArray(l.message.content) ? l.message.content : [])).filter((b: { type: string }) => b.type === "tool_use");
  expect(uses).toEqual([
    { type: "tool_use", id: "t1", name: "Bash", input: { command: "echo hi" } },
    { type: "tool_use", id: "t2", name: "Read", input: { file_path: h.project.path("a.txt") } },
  ]);
});
