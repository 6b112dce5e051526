/**
 * How subagents run: several task calls of one turn at once, Ctrl-C (the parent's signal) stops them and
 * their tools, max turns returns what the agent had with a notice, nesting is bounded, Claude Code's
 * Agent(name) / Task(name) rules name the agent, and an agent's permissionMode narrows the session's.
 */
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { ModelError, type ModelProvider, type ModelRequest, type ModelStreamEvent } from "../../../core/index.js";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";
import { agentFile, agentsHost } from "./helpers.js";

vi.setConfig({ testTimeout: 20_000 });
afterEach(closeHosts);
afterAll(cleanupTemp);

type Answer = { text?: string; toolCalls?: { id: string; name: string; input: unknown }[] };
/** A model whose answer is a function of the request (and may wait); `scripted:` like the test helpers' one. */
function modelOf(answer: (request: ModelRequest, signal: AbortSignal) => Promise<Answer> | Answer): ModelProvider {
  return {
    name: "live",
    async *stream(request, { signal }): AsyncIterable<ModelStreamEvent> {
      const a = await answer(request, signal);
      if (a.text) yield { type: "text_delta", text: a.text };
      for (const call of a.toolCalls ?? []) yield { type: "tool_call", call };
      yield { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } };
      yield { type: "stop", reason: a.toolCalls?.length ? "tool_use" : "end_turn" };
    },
  };
}
const firstUser = (r: ModelRequest) => (r.messages[0] as { content: string }).content;
const isParent = (r: ModelRequest) => r.tools.some((t) => t.name === "task");
const task = (id: string, prompt: string, type = "explore") => ({ id, name: "task", input: { description: prompt, prompt, subagent_type: type } });
const untilAborted = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));

describe("running subagents", () => {
  test("three task calls in one turn run at once: each subagent's first request waits for the other two", async () => {
    const arrived: string[] = [];
    let release!: () => void;
    const all = new Promise<void>((r) => (release = r));
    const model = modelOf(async (req) => {
      if (isParent(req)) return req.messages.some((m) => m.role === "tool") ? { text: "collected" } : { toolCalls: [task("t1", "one"), task("t2", "two"), task("t3", "three")] };
      arrived.push(firstUser(req));
      if (arrived.length === 3) release();
      // Were they run one after another, the first would wait here alone (and the test time out).
      await all;
      return { text: `found ${firstUser(req)}` };
    });
    const h = await agentsHost({ model: "live:test" }, [], { plugins: [{ name: "live", providers: [model] }] });
    const result = await h.host.run("search three things");
    expect(result).toMatchObject({ ok: true, text: "collected" });
    expect(arrived.sort()).toEqual(["one", "three", "two"]);
    const answers = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content.split("\n")[0]);
    expect(answers).toEqual(["found one", "found two", "found three"]);
  });

  test("the parent's signal (Ctrl-C) stops a subagent and the tool it is running", async () => {
    const project = tempProject({ ".agent/agents/runner.md": agentFile({ name: "runner", description: "Runs things.", tools: "Bash" }, "Run it.") });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const model = modelOf(async (req, signal) => {
      if (isParent(req)) return { toolCalls: [task("t1", "run it", "runner")] };
      if (req.messages.length === 1) return { toolCalls: [{ id: "c1", name: "run_command", input: { command: "touch started; sleep 30" } }] };
      return untilAborted(signal);
    });
    const h = await agentsHost({ model: "live:test" }, [], { project, permissionMode: "bypass", plugins: [{ name: "live", providers: [model] }] });
    let ended!: (outcome: string) => void;
    const commandEnd = new Promise<string>((r) => (ended = r));
    h.host.on((e) => {
      if (e.type === "tool_start" && e.name === "run_command") started();
      if (e.type === "tool_end" && e.name === "run_command") ended(e.outcome);
    });
    const controller = new AbortController();
    const run = h.host.run("go", { signal: controller.signal });
    await running;
    controller.abort();
    const result = await run;
    expect(result.reason).toBe("aborted");
    // The task call ends at once; the command it was running is stopped too (not left to its 30 s).
    expect(await commandEnd).toBe("aborted");
    await h.host.close();
    const calls = h.audit().filter((r) => r.kind === "call");
    expect(calls.map((r) => [r.name, r.outcome, r.agent ?? null])).toEqual([
      ["task", "aborted", null],
      ["run_command", "aborted", "runner"],
    ]);
  });

  test("past its max turns an agent returns what it had, with a notice; task calls nest at most 2 deep", async () => {
    const project = tempProject({
      ".agent/agents/short.md": agentFile({ name: "short", description: "Short.", tools: "Read", maxTurns: "1" }, "Be brief."),
      ".agent/agents/nester.md": agentFile({ name: "nester", description: "Nests.", tools: "Task" }, "Delegate."),
    });
    let depth = 0;
    const model = modelOf((req) => {
      const prompt = firstUser(req);
      if (prompt === "parent") return req.messages.some((m) => m.role === "tool") ? { text: "end" } : { toolCalls: [task("a", "short one", "short"), task("b", "nest 1", "nester")] };
      if (prompt === "short one") return { text: "partial", toolCalls: [{ id: "r", name: "read_file", input: { path: "package.json" } }] };
      if (prompt.startsWith("nest") && !req.messages.some((m) => m.role === "tool")) return { toolCalls: [task(`n${++depth}`, `nest ${depth + 1}`, "nester")] };
      return { text: `back from ${prompt}` };
    });
    const h = await agentsHost({ model: "live:test" }, [], { project, plugins: [{ name: "live", providers: [model] }] });
    await h.host.run("parent");
    const [short, nest] = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
    expect(short).toMatch(/^partial\n\n\(The short agent reached its limit of 1 turns; this is what it had\.\)/);
    expect(nest).toMatch(/^back from nest 1/);
    // nest 1 → nest 2 ran; nest 2's task call was refused (2 deep is the most).
    await h.host.close();
    const tasks = h.audit().filter((r) => r.kind === "call" && r.name === "task");
    expect(tasks.map((r) => [r.callId, r.outcome, r.agent ?? null]).sort()).toEqual([
      ["a", "ok", null],
      ["b", "ok", null],
      ["n1", "ok", "nester"],
      ["n2", "error", "nester"],
    ]);
    expect(tasks.find((r) => r.callId === "n2")?.error).toContain("subagents nest at most 2 deep");
  });

  test("Agent(name) and Task(name) rules name the agent; an agent's plan mode narrows the session's", async () => {
    const project = tempProject({ ".agent/agents/planner.md": agentFile({ name: "planner", description: "Plans.", tools: "Read, Write", permissionMode: "plan" }, "Plan.") });
    const model = modelOf((req) => {
      const prompt = firstUser(req);
      if (prompt === "parent") return req.messages.some((m) => m.role === "tool") ? { text: "end" } : { toolCalls: [task("x", "look", "explore"), task("g", "work", "general-purpose"), task("p", "plan", "planner")] };
      if (prompt === "plan" && !req.messages.some((m) => m.role === "tool")) return { toolCalls: [{ id: "w", name: "write_file", input: { path: "plan.md", content: "x" } }] };
      return { text: `did ${prompt}` };
    });
    const h = await agentsHost({ model: "live:test", permissions: { deny: ["Agent(explore)", "Task(general-purpose)"] } }, [], { project, permissionMode: "bypass", plugins: [{ name: "live", providers: [model] }] });
    await h.host.run("parent");
    const [explore, general, planner] = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
    expect(explore).toMatch(/^Permission denied: task\(explore\) was not run because it matches the deny rule "Agent\(explore\)"/);
    expect(general).toMatch(/^Permission denied: task\(general-purpose\) was not run because it matches the deny rule "Task\(general-purpose\)"/);
    expect(planner).toMatch(/^did plan/);
    await h.host.close();
    expect(h.audit().find((r) => r.kind === "call" && r.name === "write_file")).toMatchObject({ outcome: "denied", by: "mode:plan", agent: "planner" });
  });

  test("an agent's own model this host has no key for (a Claude Code file's model: sonnet) runs on the session's, saying so", async () => {
    const project = tempProject({
      ".agent/agents/keyless.md": agentFile({ name: "keyless", description: "Wants another model.", model: "claude:big" }, "Answer."),
      ".agent/agents/unknown.md": agentFile({ name: "unknown", description: "Wants a provider nobody loaded.", model: "nowhere:x" }, "Answer."),
    });
    const claude: ModelProvider = {
      name: "claude",
      async *stream() {
        throw new ModelError("E_MODEL_NO_KEY", "No API key for claude: set CLAUDE_KEY.", { provider: "claude" });
      },
    };
    const model = modelOf((req) => {
      const prompt = firstUser(req);
      if (prompt === "parent") return req.messages.some((m) => m.role === "tool") ? { text: "end" } : { toolCalls: [task("k", "one", "keyless"), task("u", "two", "unknown")] };
      return { text: `answered ${prompt} on the session's model` };
    });
    const h = await agentsHost({ model: "live:test" }, [], { project, plugins: [{ name: "live", providers: [model, claude] }] });
    await h.host.run("parent");
    const [keyless, unknown] = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
    expect(keyless).toMatch(/^answered one on the session's model\n\n\(The keyless agent asks for model "claude:big", which could not be used here \(No API key for claude: set CLAUDE_KEY\.\); it ran on the session's model\.\)/);
    expect(unknown).toMatch(/^answered two on the session's model\n\n\(The unknown agent asks for model "nowhere:x", which this host cannot run \(Unknown model provider "nowhere"/);
  });

  test("agents that can write run one at a time, and one started inside another does not wait for its parent", async () => {
    const project = tempProject({
      ".agent/agents/outer.md": agentFile({ name: "outer", description: "Writes, delegates.", tools: "Write, Task" }, "Outer."),
      ".agent/agents/inner.md": agentFile({ name: "inner", description: "Writes.", tools: "Write" }, "Inner."),
    });
    let inFlight = 0;
    let most = 0;
    const model = modelOf(async (req) => {
      const prompt = firstUser(req);
      const done = req.messages.some((m) => m.role === "tool");
      if (prompt === "parent") return done ? { text: "end" } : { toolCalls: [task("o1", "outer one", "outer"), task("o2", "outer two", "outer")] };
      if (prompt.startsWith("outer")) {
        if (!done) {
          most = Math.max(most, ++inFlight);
          return { toolCalls: [task(`i-${prompt}`, `inner of ${prompt}`, "inner")] };
        }
        inFlight--;
        return { text: `${prompt} done` };
      }
      return { text: `${prompt} done` };
    });
    const h = await agentsHost({ model: "live:test" }, [], { project, plugins: [{ name: "live", providers: [model] }] });
    await h.host.run("parent");
    const answers = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content.split("\n")[0]);
    expect(answers).toEqual(["outer one done", "outer two done"]);
    // The two writing agents did not overlap.
    expect(most).toBe(1);
  });

  test("an agent's maxTurns never goes past the session's budget (config maxTurns)", async () => {
    const project = tempProject({ ".agent/agents/long.md": agentFile({ name: "long", description: "Long.", tools: "Read", maxTurns: "9" }, "Go on.") });
    const model = modelOf((req) => {
      if (firstUser(req) === "parent") return { toolCalls: [task("l", "long one", "long")] };
      return { text: "still going", toolCalls: [{ id: `r${req.messages.length}`, name: "read_file", input: { path: "package.json" } }] };
    });
    const h = await agentsHost({ model: "live:test", maxTurns: 2 }, [], { project, plugins: [{ name: "live", providers: [model] }] });
    await h.host.run("parent");
    const [answer] = h.host.session.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
    expect(answer).toMatch(/^still going\n\n\(The long agent reached its limit of 2 turns; this is what it had\.\)/);
  });
});
