/**
 * The conversation's events with real hook scripts, through the agent loop and a scripted model:
 * SessionStart, UserPromptSubmit, Stop, SessionEnd; and PreCompact (which compaction will fire) at
 * the level of its tap.
 */
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { planHooks } from "../../../plugins/hooks/config.js";
import { Dispatcher } from "../../../plugins/hooks/dispatch.js";
import { tapSessionHooks } from "../../../plugins/hooks/session-hooks.js";
import { Transcript } from "../../../plugins/hooks/transcript.js";
import type { CompactDecision, CompactInfo, PluginContext } from "../../../core/index.js";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp } from "../../helpers/project.js";
import { bash, hook, hooksHost, node, readLog } from "./helpers.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const json = (o: unknown) => JSON.stringify(o);

describe("SessionStart and SessionEnd", () => {
  test("SessionStart runs once per conversation, its plain stdout is context in the system prompt; clear ends it (SessionEnd clear) and the next run starts again (source clear); closing ends it (other)", async () => {
    const h = await hooksHost(
      {
        hooks: {
          SessionStart: [{ matcher: "startup|clear", hooks: [{ type: "command", command: bash("record.sh", "start-log", 0, "", "Current branch: feat/hooks") }] }],
          SessionEnd: [{ hooks: [{ type: "command", command: node("record.mjs", "end-log") }] }],
        },
      },
      { model: [{ text: "one" }, { text: "two" }, { text: "three" }] },
    );
    await h.host.run("first");
    await h.host.run("second");
    expect(h.model!.requests).toHaveLength(2);
    for (const r of h.model!.requests) expect(r.system).toContain('<context from="hooks">\nCurrent branch: feat/hooks\n</context>');
    const first = h.host.sessionId;
    h.host.session.clear();
    const second = h.host.sessionId;
    expect(second).not.toBe(first); // /clear starts a new session, as in Claude Code
    await h.host.run("third");
    await h.host.close();
    const starts = readLog(h.project.path("start-log")).inputs;
    expect(starts.map((i) => i.session_id)).toEqual([first, second]);
    // SessionEnd of the cleared session names it and its transcript, not the new one.
    expect(readLog(h.project.path("end-log")).inputs.map((i) => [i.session_id, path.basename(String(i.transcript_path))])).toEqual([
      [first, `${first}.jsonl`],
      [second, `${second}.jsonl`],
    ]);
    expect(starts.map((i) => [i.hook_event_name, i.source, i.model])).toEqual([
      ["SessionStart", "startup", "scripted:test"],
      ["SessionStart", "clear", "scripted:test"],
    ]);
    expect(readLog(h.project.path("end-log")).inputs.map((i) => [i.hook_event_name, i.reason])).toEqual([
      ["SessionEnd", "clear"],
      ["SessionEnd", "other"],
    ]);
  });

  test("SessionStart's exit 2 only shows stderr to the user; no command runs a session by itself", async () => {
    const h = await hooksHost({ hooks: hook("SessionStart", bash("record.sh", "log", 2, "cannot read issues")) }, { model: [{ text: "fine" }] });
    const notices: string[] = [];
    h.host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    await h.host.tools.list();
    expect(readLog(h.project.path("log")).inputs).toEqual([]);
    expect(await h.host.run("go")).toMatchObject({ ok: true, text: "fine" });
    expect(notices).toContain("SessionStart hook: cannot read issues");
    expect(h.model!.requests[0].system).not.toContain("<context");
  });
});

describe("UserPromptSubmit", () => {
  test("gets the prompt; plain stdout and additionalContext go with the prompt to the model", async () => {
    const h = await hooksHost(
      {
        hooks: {
          UserPromptSubmit: [
            { hooks: [{ type: "command", command: bash("record.sh", "log", 0, "", "Ticket ABC-1 is open") }] },
            { hooks: [{ type: "command", command: node("record.mjs", "log2", 0, "", json({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "Use bun" } })) }] },
          ],
        },
      },
      { model: [{ text: "ok" }] },
    );
    await h.host.run("fix the build");
    const [input] = readLog(h.project.path("log")).inputs;
    expect(input).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "fix the build", permission_mode: "default" });
    expect(h.model!.requests[0].messages[0]).toEqual({
      role: "user",
      content: 'fix the build\n\n<context from="hooks">\nTicket ABC-1 is open\n\nUse bun\n</context>',
    });
  });

  test.each([
    ["exit 2", bash("record.sh", "log", 2, "no secrets in prompts"), "no secrets in prompts"],
    ["JSON block", node("record.mjs", "log", 0, "", json({ decision: "block", reason: "prompt refused" })), "prompt refused"],
    ["continue: false", node("record.mjs", "log", 0, "", json({ continue: false, stopReason: "maintenance window" })), "maintenance window"],
  ])("%s blocks the prompt: the model is not asked, the prompt is not kept, the run ends stopped", async (_case, command, reason) => {
    const h = await hooksHost({ hooks: hook("UserPromptSubmit", command) }, { model: [{ text: "should not happen" }] });
    const r = await h.host.run("my password is hunter2");
    expect(r).toMatchObject({ ok: false, reason: "stopped", turns: 0, stoppedBy: { plugin: "hooks", reason } });
    expect(h.model!.requests).toHaveLength(0);
    expect(h.host.session.messages).toEqual([]);
  });

  test("a hook that fails is a non-blocking error by default, and blocks the prompt when it fails closed", async () => {
    const open = await hooksHost({ hooks: hook("UserPromptSubmit", node("crash.mjs")) }, { model: [{ text: "went through" }] });
    expect(await open.host.run("hi")).toMatchObject({ ok: true, text: "went through" });
    const closed = await hooksHost({ hooks: hook("UserPromptSubmit", node("crash.mjs")), hooksConfig: { failClosed: true } }, { model: [{ text: "never" }] });
    const r = await closed.host.run("hi");
    expect(r).toMatchObject({ reason: "stopped", stoppedBy: { reason: expect.stringMatching(/exited with code 1: Error: the policy script has a bug, and fails closed$/) } });
    expect(closed.model!.requests).toHaveLength(0);
  });
});

describe("Stop", () => {
  test("decision block makes the run go on with the reason; stop_hook_active says so the second time; last_assistant_message is the answer", async () => {
    // Blocks while the log has fewer than one run: a script that checks stop_hook_active would do the same.
    const script = `input=$(cat); printf '%s\\n' "$input" >> log; case "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"run the tests first"}';; esac`;
    const h = await hooksHost({ hooks: hook("Stop", script) }, { model: [{ text: "done, I think" }, { text: "tests pass" }] });
    const r = await h.host.run("do it");
    expect(r).toMatchObject({ ok: true, reason: "end_turn", text: "tests pass", turns: 2 });
    expect(h.model!.requests[1].messages.at(-1)).toEqual({ role: "user", content: '<context from="hooks">\nStop hook: run the tests first\n</context>' });
    expect(readLog(h.project.path("log")).inputs.map((i) => [i.hook_event_name, i.stop_hook_active, i.last_assistant_message])).toEqual([
      ["Stop", false, "done, I think"],
      ["Stop", true, "tests pass"],
    ]);
  });

  test("a hook that always blocks (exit 2) is overridden after 8 continuations in a row", async () => {
    const h = await hooksHost({ hooks: hook("Stop", bash("record.sh", "log", 2, "keep going")) }, { model: Array.from({ length: 20 }, (_, i) => ({ text: `answer ${i}` })) });
    const notices: string[] = [];
    h.host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    const r = await h.host.run("loop forever");
    expect(r).toMatchObject({ reason: "end_turn", turns: 9 });
    expect(readLog(h.project.path("log")).inputs).toHaveLength(9);
    expect(notices).toContain("Stop handlers asked the run to go on 8 times in a row; it ends here.");
  });
});

describe("PreCompact (fired by compaction, which comes later)", () => {
  /** The plugin's PreCompact tap, on a context whose hook table hands the handler back. */
  async function preCompactHandler(command: string, failClosed = false) {
    let realCtx: PluginContext | undefined;
    const h = await hooksHost({}, { plugins: [{ name: "grab", setup: (c) => void (realCtx = c) }] });
    let handler: ((c: CompactInfo) => Promise<CompactDecision | void>) | undefined;
    const ctx = { ...realCtx!, hooks: { ...realCtx!.hooks, preCompact: { tapPromise: (_n: string, fn: typeof handler) => (handler = fn) } } } as unknown as PluginContext;
    const { plan } = planHooks({ PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command, failClosed }] }] }, undefined);
    tapSessionHooks(ctx, new Dispatcher(ctx, plan, new Transcript(ctx)));
    return { handler: handler!, project: h.project };
  }

  test("gets trigger and custom_instructions; exit 2 or JSON block blocks the compaction; a crash blocks only when it fails closed", async () => {
    const info = (trigger: "manual" | "auto"): CompactInfo => ({ sessionId: "s", trigger, instructions: "keep the API notes", mode: "default" });
    const rec = await preCompactHandler(bash("record.sh", "log", 2, "not now"));
    expect(await rec.handler(info("manual"))).toEqual({ block: "not now" });
    expect(readLog(rec.project.path("log")).inputs[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep the API notes" });
    expect(await rec.handler(info("auto"))).toBeUndefined(); // the matcher is "manual"
    const js = await preCompactHandler(node("record.mjs", "log", 0, "", json({ decision: "block", reason: "summary would lose the plan" })));
    expect(await js.handler(info("manual"))).toEqual({ block: "summary would lose the plan" });
    expect(await (await preCompactHandler(node("crash.mjs"))).handler(info("manual"))).toBeUndefined();
    expect(await (await preCompactHandler(node("crash.mjs"), true)).handler(info("manual"))).toEqual({ block: expect.stringMatching(/fails closed$/) });
  });
});
