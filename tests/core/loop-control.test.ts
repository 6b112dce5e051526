/**
 * The loop's control and context: turn limit, cancelling, the session's conversation, context
 * assembly (system prompt, AGENTS.md, tools, the beforeModelRequest waterfall), setup errors.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { AgentError, createHost, type ToolDefinition } from "../../core/index.js";
import { builtinPlugins } from "../../cli/builtins.js";
import { openHost, startFake, tempDir, systemOf, toolNamesOf, toolResults, type FakeServer, type FakeServerOptions, type TestHost, type Turn } from "./loop-helpers.js";

let srv: FakeServer | undefined;
let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  await srv?.close();
  t = srv = undefined;
});

async function setup(script: Turn[], options: Parameters<typeof openHost>[2] = {}, serverOpts: FakeServerOptions = {}) {
  srv = await startFake("openai", script, serverOpts);
  t = await openHost("openai", srv, options);
  return { srv, t, host: t.host, events: t.events };
}

const noop: ToolDefinition = { name: "noop", description: "Does nothing", risk: "read", inputSchema: { type: "object" }, run: () => "" };

describe("turn limit", () => {
  test("stops after maxTurns model requests with reason max_turns", async () => {
    const { host, srv, events } = await setup([{ toolCalls: [{ name: "noop", arguments: {} }] }], { tools: [noop] }, { loop: true });
    const result = await host.run("Loop forever", { maxTurns: 3 });
    expect(result).toMatchObject({ ok: false, reason: "max_turns", turns: 3, toolCalls: 3 });
    expect(srv.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: "session_end", reason: "max_turns", turns: 3 });
  });

  test("config maxTurns is the default", async () => {
    const { host, srv } = await setup([{ toolCalls: [{ name: "noop", arguments: {} }] }], { tools: [noop], config: { maxTurns: 2 } }, { loop: true });
    const result = await host.run("Loop");
    expect(result.reason).toBe("max_turns");
    expect(srv.requests).toHaveLength(2);
  });

  test("an empty tool result reaches the model as (no output)", async () => {
    const { host, srv } = await setup([{ toolCalls: [{ id: "n1", name: "noop", arguments: {} }] }, "ok"], { tools: [noop] });
    await host.run("Go");
    expect(toolResults("openai", srv.requests[1])[0].content).toBe("(no output)");
  });

  test("an answer cut at the output token limit stops with max_tokens", async () => {
    const { host } = await setup([{ text: "A long answer that", finishReason: "length" }]);
    const result = await host.run("Write a lot");
    expect(result).toMatchObject({ ok: false, reason: "max_tokens", text: "A long answer that" });
  });
});

describe("cancelling", () => {
  test("abort while a tool runs: the tool's signal fires, the run ends aborted, the conversation stays valid", async () => {
    const controller = new AbortController();
    let toolSignalFired = false;
    const slow: ToolDefinition = {
      name: "slow",
      description: "Waits for its signal",
      risk: "read",
      inputSchema: { type: "object" },
      run: (_i, { signal }) =>
        new Promise((_res, rej) => {
          signal.addEventListener("abort", () => {
            toolSignalFired = true;
            rej(signal.reason);
          });
          controller.abort();
        }),
    };
    const { host, srv, events } = await setup([{ toolCalls: [{ id: "s1", name: "slow", arguments: {} }, { id: "s2", name: "slow", arguments: {} }] }, "Fine, carrying on."], {
      tools: [slow],
    });
    const result = await host.run("Do the slow thing", { signal: controller.signal });

    expect(result).toMatchObject({ ok: false, reason: "aborted", turns: 1 });
    expect(toolSignalFired).toBe(true);
    expect(events.filter((e) => e.type === "tool_end").map((e) => (e as { outcome: string }).outcome)).toEqual(["aborted", "aborted"]);
    expect(events.at(-1)).toMatchObject({ type: "session_end", reason: "aborted" });

    // The next prompt continues the same conversation, which the server checks pairs every call with a result.
    const next = await host.run("Carry on");
    expect(next).toMatchObject({ ok: true, text: "Fine, carrying on." });
    expect(srv.requests[1].status).toBe(200);
    expect(toolResults("openai", srv.requests[1]).map((r) => r.id)).toEqual(["s1", "s2"]);
  });

  test("abort while the model streams: the HTTP request is cancelled and the partial text is kept", async () => {
    const controller = new AbortController();
    const { host, srv, events } = await setup([{ text: ["Partial ", "answer ", "never finished"], stallAfter: 3 }]);
    host.on((e) => {
      if (e.type === "text_delta" && e.text === "answer ") controller.abort();
    });
    const result = await host.run("Start", { signal: controller.signal });

    expect(result).toMatchObject({ reason: "aborted", text: "Partial answer " });
    expect(events.some((e) => e.type === "retry" || e.type === "error")).toBe(false);
    await vi.waitFor(() => expect(srv.requests[0].aborted).toBe(true));
    expect(host.session.messages.at(-1)).toEqual({ role: "assistant", content: "Partial answer " });
  });

  test("a silent stream is dropped after idleTimeoutMs and reported", async () => {
    const { host } = await setup([{ text: "abc", stallAfter: 2 }]);
    const result = await host.run("Go", { idleTimeoutMs: 100, retry: { maxAttempts: 1 } });
    expect(result).toMatchObject({ reason: "error", error: { code: "E_MODEL_TIMEOUT" } });
    expect(result.error!.message).toContain("sent nothing for");
  });
});

describe("the session", () => {
  test("keeps the conversation between runs; clear() forgets it", async () => {
    const { host, srv } = await setup(["First answer.", "Second answer.", "Third answer."]);
    await host.run("First question");
    await host.run("Second question");
    const second = srv.requests[1].body.messages.filter((m: { role: string }) => m.role !== "system");
    expect(second).toEqual([
      { role: "user", content: "First question" },
      { role: "assistant", content: "First answer." },
      { role: "user", content: "Second question" },
    ]);
    expect(host.session.usage.inputTokens).toBeGreaterThan(0);

    host.session.clear();
    await host.run("Third question");
    expect(srv.requests[2].body.messages.filter((m: { role: string }) => m.role !== "system")).toEqual([{ role: "user", content: "Third question" }]);
  });

  test("one run at a time", async () => {
    const { host } = await setup([{ text: "slow", delayMs: 50 }, "x"]);
    const first = host.run("One");
    await expect(host.run("Two")).rejects.toMatchObject({ code: "E_USAGE" });
    await first;
    expect(host.session.running).toBe(false);
  });
});

describe("context assembly", () => {
  test("default system prompt, AGENTS.md and every registered tool are sent", async () => {
    const { host, srv, t } = await setup(["ok"], { tools: [noop, { ...noop, name: "other_tool", description: "Another" }] });
    await writeFile(path.join(t.dir, "AGENTS.md"), "# Rules\nAlways answer in French.\n");
    await host.run("Hi");
    const system = systemOf("openai", srv.requests[0]);
    expect(system).toContain("You are a capable software agent");
    expect(system).toContain(`Working directory: ${host.workspace.root}`);
    expect(system).toContain("# Project instructions (AGENTS.md)\n\n# Rules\nAlways answer in French.");
    expect(toolNamesOf("openai", srv.requests[0]).sort()).toEqual(["noop", "other_tool"]);
    expect(srv.requests[0].body.tools[0].function.parameters).toMatchObject({ type: "object" });
  });

  test("config systemPrompt replaces the default; run options replace both", async () => {
    const { host, srv } = await setup(["a", "b"], { config: { systemPrompt: "You are terse." } });
    await host.run("Hi");
    await host.run("Hi again", { systemPrompt: "You are verbose." });
    expect(systemOf("openai", srv.requests[0])).toBe("You are terse.");
    expect(systemOf("openai", srv.requests[1])).toBe("You are verbose.");
  });

  test("plugins add context through the beforeModelRequest waterfall", async () => {
    const { host, srv } = await setup(["ok"], {
      config: { systemPrompt: "Base." },
      plugins: [
        {
          name: "context-adder",
          beforeModelRequest: (req) => ({ ...req, system: `${req.system}\n\nSkill: be kind.`, tools: req.tools.filter((x) => x.name !== "noop") }),
        },
      ],
      tools: [noop],
    });
    await host.run("Hi");
    expect(systemOf("openai", srv.requests[0])).toBe("Base.\n\nSkill: be kind.");
    expect(srv.requests[0].body.tools).toBeUndefined();
  });
});

describe("setup errors", () => {
  test("no model configured: E_NO_MODEL saying how to configure one", async () => {
    const saved = process.env.AGENT_MODEL;
    delete process.env.AGENT_MODEL;
    const tmp = await tempDir();
    const host = await createHost({ cwd: tmp.dir, userConfigDir: false, builtins: builtinPlugins.filter((b) => b.name === "openai") });
    try {
      expect(host.session.model).toBeUndefined();
      const err = await host.run("Hi").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentError);
      expect(err).toMatchObject({ code: "E_NO_MODEL" });
      expect((err as Error).message).toContain("AGENT_MODEL");
      expect((err as Error).message).toContain("--model");
      // AGENT_MODEL is the fallback when nothing is chosen in the session.
      process.env.AGENT_MODEL = "openai:from-env";
      expect(host.session.model).toBe("openai:from-env");
    } finally {
      if (saved === undefined) delete process.env.AGENT_MODEL;
      else process.env.AGENT_MODEL = saved;
      await host.close();
      await tmp.remove();
    }
  });

  test("unknown provider: E_CONFIG listing the registered providers", async () => {
    const { host } = await setup([]);
    const err = await host.run("Hi", { model: "nope:some-model" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "E_CONFIG" });
    expect((err as Error).message).toContain('Unknown model provider "nope"');
    expect((err as Error).message).toContain("openai");
    expect((err as Error).message).toContain("anthropic");
  });
});
