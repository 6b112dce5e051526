/**
 * The conversation hooks with TypeScript plugins and a scripted model: sessionStart and sessionEnd
 * around a conversation, userPromptSubmit screening the prompt (failing closed), stop making a run go
 * on (bounded), ctx.stopRun, and afterToolCall seeing tools that threw or timed out.
 */
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { z, type Plugin, type PluginContext } from "../../core/index.js";
import { scriptedProvider, type ScriptedTurn } from "../../testing/index.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

async function withModel(turns: ScriptedTurn[], plugins: Plugin[], config = {}) {
  const model = scriptedProvider(turns);
  const t = await testHost({ plugins: [{ name: "model", providers: [model] }, ...plugins], config: { model: "scripted:x", ...config } });
  return { ...t, model };
}

test("sessionStart: once per conversation, its context in every request's system prompt; sessionEnd on clear and on close", async () => {
  const log: string[] = [];
  const p: Plugin = {
    name: "lifecycle",
    sessionStart: (s) => (log.push(`start:${s.source}:${s.model}`), { context: "The deploy target is staging." }),
    sessionEnd: (s) => void log.push(`end:${s.reason}`),
  };
  const { host, model } = await withModel([{ text: "a" }, { text: "b" }, { text: "c" }], [p]);
  await host.run("one");
  await host.run("two");
  host.session.clear();
  await host.run("three");
  await host.close();
  expect(log).toEqual(["start:startup:scripted:x", "end:clear", "start:clear:scripted:x", "end:close"]);
  for (const r of model.requests) expect(r.system).toMatch(/<context from="lifecycle">\nThe deploy target is staging\.\n<\/context>$/);
});

describe("userPromptSubmit", () => {
  test("context goes after the prompt; a block keeps the prompt out of the conversation and ends the run stopped", async () => {
    const { host, model, events } = await (async () => {
      const t = await withModel([{ text: "ok" }], [
        { name: "ctx", userPromptSubmit: () => ({ context: "branch: main" }) },
        { name: "guard", userPromptSubmit: (p) => (p.prompt.includes("password") ? { block: "no secrets" } : undefined) },
      ]);
      const ev: string[] = [];
      t.host.on((e) => void (e.type === "notice" && ev.push(e.message)));
      return { ...t, events: ev };
    })();
    await host.run("hello");
    expect(model.requests[0].messages[0]).toEqual({ role: "user", content: 'hello\n\n<context from="ctx">\nbranch: main\n</context>' });
    const blocked = await host.run("my password is x");
    expect(blocked).toMatchObject({ ok: false, reason: "stopped", stoppedBy: { plugin: "guard", reason: "no secrets" }, turns: 0 });
    expect(host.session.messages.map((m) => m.content)).not.toContainEqual(expect.stringContaining("password"));
    expect(events).toContain("Prompt blocked by plugin guard: no secrets");
    expect(model.requests).toHaveLength(1);
  });

  test("a handler that throws, hangs or answers garbage blocks the prompt (a screener must not fail open)", async () => {
    for (const userPromptSubmit of [() => { throw new Error("boom"); }, () => new Promise<never>(() => {}), () => "fine" as never] as Plugin["userPromptSubmit"][]) {
      const { host, model } = await withModel([{ text: "never" }], [{ name: "screener", userPromptSubmit }], { pluginTimeouts: { callMs: 100 } });
      expect(await host.run("hi")).toMatchObject({ reason: "stopped", stoppedBy: { plugin: "screener" } });
      expect(model.requests).toHaveLength(0);
    }
  });
});

describe("stop", () => {
  test("continue makes the run go on with the message; stopHookActive after the first; bounded at 8 in a row", async () => {
    const seen: boolean[] = [];
    const p: Plugin = { name: "nag", stop: (s) => (seen.push(s.stopHookActive), { continue: "not yet" }) };
    const { host, model } = await withModel(Array.from({ length: 20 }, () => ({ text: "done?" })), [p]);
    const r = await host.run("go");
    expect(r).toMatchObject({ ok: true, reason: "end_turn", turns: 9 });
    expect(seen).toEqual([false, true, true, true, true, true, true, true, true]);
    expect(model.requests[1].messages.at(-1)).toEqual({ role: "user", content: '<context from="nag">\nnot yet\n</context>' });
  });

  test("the turn limit still holds: a continuation past it ends the run at max_turns", async () => {
    const { host } = await withModel([{ text: "a" }, { text: "b" }], [{ name: "nag", stop: () => ({ continue: "more" }) }], { maxTurns: 2 });
    expect(await host.run("go")).toMatchObject({ reason: "max_turns", turns: 2 });
  });
});

test("ctx.stopRun ends the run after the current tool calls, with reason stopped; false when no run is in progress", async () => {
  let ctx: PluginContext | undefined;
  const tool = { name: "work", description: "does work", risk: "read" as const, input: z.object({}), run: () => (ctx!.stopRun("budget spent"), "worked") };
  const { host, model } = await withModel([{ toolCalls: [{ name: "work", input: {} }] }, { text: "never asked" }], [{ name: "budget", tools: [tool], setup: (c) => void (ctx = c) }]);
  expect(ctx!.stopRun("nothing running")).toBe(false);
  const r = await host.run("go");
  expect(r).toMatchObject({ ok: false, reason: "stopped", stoppedBy: { plugin: "budget", reason: "budget spent" }, toolCalls: 1, turns: 1 });
  expect(model.requests).toHaveLength(1);
  expect(host.session.messages.at(-1)).toMatchObject({ role: "tool", content: "worked" });
});

test("afterToolCall also sees a tool that threw or timed out (not one that was cancelled), and may add to its result", async () => {
  const seen: string[] = [];
  const tools = [
    { name: "boom", description: "throws", risk: "read" as const, input: z.object({}), run: () => { throw new Error("kaput"); } },
    { name: "slow", description: "times out", risk: "read" as const, timeoutMs: 50, input: z.object({}), run: () => new Promise<string>(() => {}) },
  ];
  const { host } = await testHost({
    plugins: [{ name: "t", tools }, { name: "after", afterToolCall: (r) => (seen.push(`${r.outcome}:${r.output}`), { ...r, output: `${r.output} [noted]` }) }],
  });
  expect(await host.tools.call("boom", {})).toMatchObject({ outcome: "error", output: "Tool boom failed: kaput [noted]" });
  expect(await host.tools.call("slow", {})).toMatchObject({ outcome: "timeout", output: expect.stringMatching(/timed out after 50 ms.* \[noted\]$/) });
  const c = new AbortController();
  const call = host.tools.call("slow", {}, { signal: c.signal });
  c.abort();
  expect((await call).outcome).toBe("aborted");
  expect(seen).toEqual(["error:Tool boom failed: kaput", expect.stringMatching(/^timeout:/)]);
});
