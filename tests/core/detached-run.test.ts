/**
 * `host.runDetached`: a run apart from the session (a subagent's): its own system prompt and messages,
 * only its tools, every call through the gate made for the agent, subagentStart/subagentStop and
 * `subagent` events around it, the session untouched.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { AgentEvent, SubagentStopInfo, ToolDefinition } from "../../core/index.js";
import { createTestHost as make, type TestHost } from "../../testing/index.js";

const look: ToolDefinition = { name: "look", description: "Reads.", risk: "read", inputSchema: { type: "object" }, run: () => "seen" };
const change: ToolDefinition = { name: "change", description: "Writes.", risk: "write", inputSchema: { type: "object" }, run: () => "changed" };

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("host.runDetached", () => {
  test("a fresh conversation under its own system prompt, only its tools, calls made for the agent", async () => {
    const stops: SubagentStopInfo[] = [];
    const starts: string[] = [];
    t = await make({
      model: [{ toolCalls: [{ name: "look", input: {} }, { name: "change", input: {} }] }, { text: "all read" }],
      permissionMode: "bypass",
      plugins: [
        {
          name: "crew",
          tools: [look, change],
          setup(ctx) {
            ctx.hooks.subagentStart.tap("crew", (s) => void starts.push(`${s.agent}:${s.parentCallId}`));
            ctx.hooks.subagentStop.tap("crew", (s) => void stops.push(s));
          },
        },
      ],
    });
    const events: AgentEvent[] = [];
    t.host.on((e) => void events.push(e));
    t.host.session.messages.push({ role: "user", content: "the parent's secret" });
    const result = await t.host.runDetached({ prompt: "Read it.", system: "You read.", tools: ["look"], agent: { name: "reader", parentCallId: "task_7" } });

    expect(result).toMatchObject({ reason: "end_turn", ok: true, text: "all read", turns: 2, toolCalls: 2, usage: { inputTokens: 20, outputTokens: 10 } });
    const [first, second] = t.model!.requests;
    expect(first.system).toBe("You read.");
    expect(first.messages).toEqual([{ role: "user", content: "Read it." }]);
    expect(first.tools.map((x) => x.name)).toEqual(["look"]);
    expect(second.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["seen", "Tool change is not available to the reader agent; its tools are: look."]);
    // The session is untouched.
    expect(t.host.session.messages).toEqual([{ role: "user", content: "the parent's secret" }]);
    expect(t.host.session.running).toBe(false);

    expect(starts).toEqual(["reader:task_7"]);
    expect(stops).toEqual([expect.objectContaining({ agent: "reader", parentCallId: "task_7", reason: "end_turn", text: "all read", turns: 2 })]);
    const sub = events.filter((e) => e.type === "subagent");
    expect(sub.map((e) => e.phase)).toEqual(["start", "turn", "tool", "tool", "turn", "end"]);
    expect(sub[1]).toMatchObject({ phase: "turn", agent: "reader", parentCallId: "task_7", turns: 1, finish: "tool_calls", usage: { inputTokens: expect.any(Number) } });
    expect(sub[4]).toMatchObject({ phase: "turn", turns: 2, finish: "stop" });
    expect(sub[2]).toMatchObject({ agent: "reader", parentCallId: "task_7", tool: { name: "look", outcome: "ok" } });
    expect(events.some((e) => e.type === "text_delta" || e.type === "session_start")).toBe(false);
    await t.host.close();
    expect(t.audit().filter((r) => r.kind === "call").map((r) => [r.name, r.outcome, r.agent, r.parentCallId])).toEqual([
      ["look", "ok", "reader", "task_7"],
      ["change", "denied", "reader", "task_7"],
    ]);
  });

  test("stops at its max turns with what it has, and an aborted signal ends it", async () => {
    t = await make({ model: [{ text: "step", toolCalls: [{ name: "look", input: {} }] }, { text: "never" }], plugins: [{ name: "crew", tools: [look] }] });
    const capped = await t.host.runDetached({ prompt: "go", system: "s", tools: ["look"], agent: { name: "a" }, maxTurns: 1 });
    expect(capped).toMatchObject({ reason: "max_turns", text: "step", turns: 1 });
    const aborted = await t.host.runDetached({ prompt: "go", system: "s", tools: [], agent: { name: "a" }, signal: AbortSignal.abort() });
    expect(aborted.reason).toBe("aborted");
  });

  test("two run at once while the session is idle, each with its own conversation", async () => {
    t = await make({ model: [(req) => ({ text: `answer to ${(req.messages[0] as { content: string }).content}` })], plugins: [{ name: "crew", tools: [look] }] });
    const [a, b] = await Promise.all([
      t.host.runDetached({ prompt: "one", system: "s", tools: [], agent: { name: "a" } }),
      t.host.runDetached({ prompt: "two", system: "s", tools: [], agent: { name: "b" } }),
    ]);
    expect(a.text).toBe("answer to one");
    // The script's one function answers the first request; past its end the scripted model says "done".
    expect(b.text).toBe("done");
    expect(b.messages[0]).toEqual({ role: "user", content: "two" });
  });
});
