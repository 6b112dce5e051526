/**
 * The call gate: validation (nothing runs on bad input), beforeToolCall deny/rewrite, timeouts and
 * aborts (even for tools that ignore their signal), output caps, tool failures as results, events.
 */
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { AgentError, z, type AgentEvent, type ToolCallContext, type ToolDefinition } from "../../core/index.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

function tool(name: string, run: ToolDefinition["run"], extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return { name, description: `tool ${name}`, risk: "read", input: z.object({}).passthrough(), run, ...extra };
}

/** A tool that never settles and ignores its signal; records the signal it got. */
function hanging(name: string, signals: AbortSignal[], extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return tool(
    name,
    (_i, ctx) => {
      signals.push(ctx.signal);
      return new Promise<string>(() => {});
    },
    extra,
  );
}

describe("input validation", () => {
  const zodTool = (run = vi.fn(() => "ran")) =>
    tool("zod_tool", run, {
      input: z.object({
        path: z.string(),
        count: z.number().int().positive(),
        nested: z.object({ flag: z.boolean() }),
        list: z.array(z.object({ id: z.string() })).optional(),
      }),
    });

  test("a zod tool: each bad field is named, and nothing runs", async () => {
    const run = vi.fn(() => "ran");
    const { host, audit } = await hostWithTools([zodTool(run)]);
    const r = await host.tools.call("zod_tool", { path: 3, count: -1, nested: { flag: "yes" }, list: [{ id: "a" }, { id: 2 }] });
    expect(r).toMatchObject({ ok: false, outcome: "invalid", error: { code: "E_TOOL_INVALID_INPUT" } });
    const lines = r.output.split("\n");
    expect(lines[0]).toBe("Invalid input for zod_tool:");
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^- path: .*expected string/),
      expect.stringMatching(/^- count: .*>0/),
      expect.stringMatching(/^- nested\.flag: .*expected boolean/),
      expect.stringMatching(/^- list\[1\]\.id: .*expected string/),
    ]);
    expect(run).not.toHaveBeenCalled();
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ outcome: "invalid", name: "zod_tool" });
  });

  test("a missing field is named; no input at all is validated as {}", async () => {
    const run = vi.fn(() => "ran");
    const { host } = await hostWithTools([zodTool(run)]);
    const r = await host.tools.call("zod_tool", { count: 1, nested: { flag: true } });
    expect(r.output).toMatch(/^- path: .*expected string, received undefined$/m);
    const none = await host.tools.call("zod_tool", undefined);
    expect(none.outcome).toBe("invalid");
    expect(none.output).toMatch(/^- path:/m);
    const notObject = await host.tools.call("zod_tool", "just a string");
    expect(notObject.output).toMatch(/^- \(input\): .*expected object/m);
    expect(run).not.toHaveBeenCalled();
  });

  test("zod defaults and transforms reach the tool", async () => {
    const run = vi.fn((i: unknown) => JSON.stringify(i));
    const { host } = await hostWithTools([
      tool("defaults", run, { input: z.object({ n: z.number().default(5), s: z.string().trim().toUpperCase() }) }),
    ]);
    expect((await host.tools.call("defaults", { s: "  hi " })).output).toBe('{"n":5,"s":"HI"}');
  });

  test("a JSON Schema tool: required, types, nested paths and unknown properties are named", async () => {
    const run = vi.fn(() => "ran");
    const { host } = await hostWithTools([
      {
        name: "json_tool",
        description: "remote",
        risk: "read",
        inputSchema: {
          type: "object",
          properties: {
            query: { type: "string" },
            limit: { type: "integer", minimum: 1 },
            items: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
          },
          required: ["query"],
          additionalProperties: false,
        },
        run,
      },
    ]);
    const r = await host.tools.call("json_tool", { limit: 0, items: [{ id: "a" }, { id: 7 }, {}], extra: true });
    expect(r.outcome).toBe("invalid");
    expect(r.output).toContain("- query: required property is missing");
    expect(r.output).toContain("- extra: unknown property");
    expect(r.output).toMatch(/^- limit: must be >= 1$/m);
    expect(r.output).toMatch(/^- items\[1\]\.id: must be string$/m);
    expect(r.output).toContain("- items[2].id: required property is missing");
    expect(run).not.toHaveBeenCalled();
    expect(await host.tools.call("json_tool", { query: "ok" })).toMatchObject({ ok: true, output: "ran" });
  });

  test("a JSON Schema the validator cannot compile still requires an object and lets the server validate", async () => {
    const { host } = await hostWithTools([
      { name: "odd_schema", description: "d", risk: "read", inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } }, run: () => "ran" },
    ]);
    expect((await host.tools.call("odd_schema", { a: 1 })).ok).toBe(true);
    expect((await host.tools.call("odd_schema", [1])).outcome).toBe("invalid");
  });
});

describe("beforeToolCall", () => {
  const echo = (run = vi.fn((i: { text: string }) => i.text)) =>
    tool("echo", run as never, { input: z.object({ text: z.string() }), permissionSubject: (i: { text: string }) => i.text });

  test("a plugin may deny: the reason reaches the caller, nothing runs", async () => {
    const run = vi.fn((i: { text: string }) => i.text);
    const { host } = await hostWithTools([echo(run)], { plugin: { beforeToolCall: () => ({ deny: "not on Fridays" }) } });
    const r = await host.tools.call("echo", { text: "x" });
    expect(r).toMatchObject({ outcome: "denied", output: "Denied by a plugin: not on Fridays", error: { code: "E_TOOL_DENIED" } });
    expect(run).not.toHaveBeenCalled();
  });

  test("a rewrite is validated again: an invalid rewrite does not run", async () => {
    const run = vi.fn((i: { text: string }) => i.text);
    const { host } = await hostWithTools([echo(run)], { plugin: { beforeToolCall: () => ({ input: { text: 42 } }) } });
    const r = await host.tools.call("echo", { text: "x" });
    expect(r.outcome).toBe("invalid");
    expect(r.output).toMatch(/^Input rewritten by plugin test is invalid for echo:\n- text: .*expected string/);
    expect(run).not.toHaveBeenCalled();
  });

  test("a valid rewrite is what runs, what later hooks see and what is audited", async () => {
    const seen: unknown[] = [];
    const { host, audit } = await hostWithTools([echo()], {
      plugin: {
        beforeToolCall: (call) => ({ input: { text: `${(call.input as { text: string }).text}!` } }),
        afterToolCall: (res, call) => void seen.push(call.input),
      },
    });
    expect((await host.tools.call("echo", { text: "hi" })).output).toBe("hi!");
    expect(seen).toEqual([{ text: "hi!" }]);
    expect(audit().find((r) => r.kind === "call")?.args).toEqual({ text: "hi!" });
  });

  test("a rewrite that changes the permission subject is permission-checked again", async () => {
    const run = vi.fn((i: { text: string }) => i.text);
    const { host } = await hostWithTools([echo(run)], {
      config: { permissions: { deny: ["echo(secret*)"], allow: ["echo(public*)"] } },
      permissionMode: "bypass",
      plugin: { beforeToolCall: (call) => ({ input: { text: `secret-${(call.input as { text: string }).text}` } }) },
    });
    const r = await host.tools.call("echo", { text: "public" });
    expect(r.outcome).toBe("denied");
    expect(r.output).toContain('deny rule "echo(secret*)"');
    expect(run).not.toHaveBeenCalled();
  });

  test("a rewrite into something that needs approval is asked about again (denied headless)", async () => {
    const run = vi.fn((i: { text: string }) => i.text);
    const { host } = await hostWithTools([{ ...echo(run), risk: "write" }], {
      config: { permissions: { allow: ["echo(safe)"] } },
      plugin: { beforeToolCall: () => ({ input: { text: "unsafe" } }) },
    });
    const r = await host.tools.call("echo", { text: "safe" });
    expect(r.outcome).toBe("denied");
    expect(r.output).toMatch(/^Input rewritten by plugin test was denied: Permission denied: echo\(unsafe\) .*needs approval/);
    expect(run).not.toHaveBeenCalled();
  });

  test("a rewrite that keeps the permission subject keeps the decision (the user is not asked twice)", async () => {
    const asker = vi.fn(async () => "allow_once" as const);
    const { host } = await hostWithTools(
      [tool("tagged", (i) => JSON.stringify(i), { risk: "write", input: z.object({ text: z.string(), tag: z.string().optional() }), permissionSubject: (i: { text: string }) => i.text })],
      { askPermission: asker, plugin: { beforeToolCall: (call) => ({ input: { ...(call.input as object), tag: "added" } }) } },
    );
    expect((await host.tools.call("tagged", { text: "a" })).output).toBe('{"text":"a","tag":"added"}');
    expect(asker).toHaveBeenCalledTimes(1);
  });

  test.each([
    ["a string", "deny", "a string"],
    ["true", true, "a boolean"],
    ["an object that is neither", { allow: true }, "an object"],
  ])("a handler returning %s fails closed, and the call never throws", async (_c, value, described) => {
    const run = vi.fn((i: { text: string }) => i.text);
    const { host } = await hostWithTools([echo(run)], { plugin: { beforeToolCall: () => value as never } });
    const r = await host.tools.call("echo", { text: "x" });
    expect(r).toMatchObject({ ok: false, outcome: "denied", error: { code: "E_TOOL_DENIED" } });
    expect(r.output).toBe(`Denied by a plugin: a beforeToolCall handler of plugin test returned ${described} instead of { deny } or { input }`);
    expect(run).not.toHaveBeenCalled();
  });

  test("a rewrite does not skip later handlers: they see it, and a later denial still stops the call", async () => {
    const seen: unknown[] = [];
    const { host, audit } = await hostWithTools([echo()], {
      plugin: { beforeToolCall: () => ({ input: { text: "first" } }) },
      plugins: [{ name: "second", beforeToolCall: (call) => (seen.push(call.input), { deny: "second" }) }],
    });
    const r = await host.tools.call("echo", { text: "x" });
    expect(r).toMatchObject({ outcome: "denied", output: "Denied by a plugin: second" });
    expect(seen).toEqual([{ text: "first" }]);
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ decision: "deny", by: "plugin:second" });
  });
});

describe("timeouts and aborts", () => {
  test("per-tool timeout: a tool that ignores its signal still gives a timeout result, and its signal fires", async () => {
    const signals: AbortSignal[] = [];
    const { host, audit } = await hostWithTools([hanging("stuck", signals, { timeoutMs: 100 })]);
    const r = await host.tools.call("stuck", {});
    expect(r).toMatchObject({
      ok: false,
      outcome: "timeout",
      output: "Tool stuck timed out after 100 ms and was cancelled.",
      error: { code: "E_TOOL_TIMEOUT" },
    });
    expect(signals[0].aborted).toBe(true);
    expect(String((signals[0].reason as Error).message)).toBe("timed out after 100 ms");
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ outcome: "timeout", decision: "allow" });
  });

  test("the global tools.timeoutMs applies to tools without their own", async () => {
    const signals: AbortSignal[] = [];
    const { host } = await hostWithTools([hanging("stuck", signals)], { config: { tools: { timeoutMs: 120 } } });
    expect((await host.tools.call("stuck", {})).output).toBe("Tool stuck timed out after 120 ms and was cancelled.");
  });

  test("tools.overrides (exact and glob keys) beat the tool's own timeout and the global one", async () => {
    const signals: AbortSignal[] = [];
    const { host } = await hostWithTools(
      [hanging("slow_a", signals, { timeoutMs: 60_000 }), hanging("slow_b", signals, { timeoutMs: 60_000 })],
      { config: { tools: { timeoutMs: 60_000, overrides: { "slow_*": { timeoutMs: 90 }, slow_b: { timeoutMs: 70 } } } } },
    );
    expect(host.tools.get("slow_a")?.timeoutMs).toBe(90);
    expect((await host.tools.call("slow_a", {})).output).toContain("timed out after 90 ms");
    expect((await host.tools.call("slow_b", {})).output).toContain("timed out after 70 ms");
  });

  test("a tool that honours its signal and rejects on timeout is still reported as a timeout", async () => {
    const { host } = await hostWithTools([
      tool("polite", (_i, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("I stopped")))), { timeoutMs: 50 }),
    ]);
    expect((await host.tools.call("polite", {})).outcome).toBe("timeout");
  });

  test("the caller's signal aborts the call and fires the tool's signal", async () => {
    const signals: AbortSignal[] = [];
    const { host, audit } = await hostWithTools([hanging("stuck", signals)]);
    const controller = new AbortController();
    const pending = host.tools.call("stuck", {}, { signal: controller.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: 10_000 });
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ ok: false, outcome: "aborted", output: "Call to stuck was cancelled.", error: { code: "E_TOOL_ABORTED" } });
    expect(signals[0].aborted).toBe(true);
    expect(audit().find((x) => x.kind === "call")?.outcome).toBe("aborted");
  });

  test("an already-aborted signal: the tool never runs", async () => {
    const run = vi.fn(() => "ran");
    const { host } = await hostWithTools([tool("t", run)]);
    const r = await host.tools.call("t", {}, { signal: AbortSignal.abort() });
    expect(r.outcome).toBe("aborted");
    expect(run).not.toHaveBeenCalled();
  });

  test("concurrent calls each time out at their own deadline; finished calls are never stopped; no timer is left", async () => {
    const signals: AbortSignal[] = [];
    const quick: AbortSignal[] = [];
    const { host } = await hostWithTools([
      hanging("slow", signals, { timeoutMs: 150 }),
      hanging("slower_list", signals, { timeoutMs: 60 }),
      tool("quick", (_i, ctx) => (quick.push(ctx.signal), "ok"), { timeoutMs: 150 }),
    ]);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const [first, done, short, later] = await Promise.all([
      host.tools.call("slow", {}),
      host.tools.call("quick", {}),
      host.tools.call("slower_list", {}),
      new Promise((r) => setTimeout(r, 50)).then(() => host.tools.call("slow", {})),
    ]);
    expect([first.outcome, done.outcome, short.outcome, later.outcome]).toEqual(["timeout", "ok", "timeout", "timeout"]);
    // Each deadline counts from the call's own start. libuv timers run on the loop's cached millisecond clock,
    // so a timer may fire up to ~1 ms "early" against performance.now(); allow that, nothing more. The later
    // call started 50 ms after the first: measured from the first call's start it would show ~100 ms.
    const granularity = 1.5;
    expect(first.durationMs).toBeGreaterThanOrEqual(150 - granularity);
    expect(short.durationMs).toBeGreaterThanOrEqual(60 - granularity);
    expect(short.durationMs).toBeLessThan(first.durationMs);
    expect(later.durationMs).toBeGreaterThanOrEqual(150 - granularity);
    expect(signals.every((s) => s.aborted)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(quick[0].aborted).toBe(false);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  test("a tool that settles after its timeout causes no unhandled rejection", async () => {
    let settle: ((v: string) => void) | undefined;
    let fail: ((e: Error) => void) | undefined;
    const { host } = await hostWithTools([
      tool("late_ok", () => new Promise<string>((r) => (settle = r)), { timeoutMs: 30 }),
      tool("late_fail", () => new Promise<string>((_r, j) => (fail = j)), { timeoutMs: 30 }),
    ]);
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      expect((await host.tools.call("late_ok", {})).outcome).toBe("timeout");
      expect((await host.tools.call("late_fail", {})).outcome).toBe("timeout");
      settle!("too late");
      fail!(new Error("too late"));
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });
});

describe("call ids", () => {
  test("a call without a caller-given id gets one unique in the session; a given id is kept", async () => {
    const ids: string[] = [];
    const { host } = await hostWithTools([tool("t", (_i, ctx) => (ids.push(ctx.callId), "ok"))]);
    const results = await Promise.all(Array.from({ length: 50 }, () => host.tools.call("t", {})));
    expect(new Set(results.map((r) => r.callId)).size).toBe(50);
    expect(ids).toEqual(results.map((r) => r.callId));
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{8}_[0-9a-z]+$/);
    expect((await host.tools.call("t", {}, { callId: "model-call-7" })).callId).toBe("model-call-7");
  });
});

describe("the call context: a lazy signal and onAbort", () => {
  test("onAbort listeners hear a timeout with its reason; ctx.aborted follows; a signal read afterwards is already aborted", async () => {
    const heard: unknown[] = [];
    let seen: ToolCallContext | undefined;
    const { host } = await hostWithTools([
      tool(
        "waits",
        (_i, ctx) => {
          seen = ctx;
          expect(ctx.aborted).toBe(false);
          ctx.onAbort((reason) => heard.push(reason));
          return new Promise<string>(() => {});
        },
        { timeoutMs: 40 },
      ),
    ]);
    expect((await host.tools.call("waits", {})).outcome).toBe("timeout");
    expect(heard).toHaveLength(1);
    expect(String(heard[0])).toMatch(/timed out after 40 ms/);
    expect(seen!.aborted).toBe(true);
    // First read after the stop: created aborted, with the same reason.
    expect(seen!.signal.aborted).toBe(true);
    expect(seen!.signal.reason).toBe(heard[0]);
    // A listener added after the stop runs at once.
    const late = vi.fn();
    seen!.onAbort(late);
    expect(late).toHaveBeenCalledWith(heard[0]);
  });

  test("a removed listener is not called; the caller's abort reaches the listeners and a signal read before it", async () => {
    const removed = vi.fn();
    const kept = vi.fn();
    const signals: AbortSignal[] = [];
    const { host } = await hostWithTools([
      tool("stoppable", (_i, ctx) => {
        signals.push(ctx.signal);
        ctx.onAbort(removed)();
        ctx.onAbort(kept);
        return new Promise<string>(() => {});
      }),
    ]);
    const controller = new AbortController();
    const pending = host.tools.call("stoppable", {}, { signal: controller.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    controller.abort(new Error("user pressed Ctrl-C"));
    expect((await pending).outcome).toBe("aborted");
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
    expect(signals[0].aborted).toBe(true);
    expect(String(signals[0].reason)).toMatch(/Ctrl-C/);
  });

  test("a listener that throws becomes a notice; the others still run and the call still ends as a timeout", async () => {
    const after = vi.fn();
    const { host } = await hostWithTools([
      tool(
        "noisy",
        (_i, ctx) => {
          ctx.onAbort(() => {
            throw new Error("listener bug");
          });
          ctx.onAbort(after);
          return new Promise<string>(() => {});
        },
        { timeoutMs: 30 },
      ),
    ]);
    const events: AgentEvent[] = [];
    host.on((e) => events.push(e));
    expect((await host.tools.call("noisy", {})).outcome).toBe("timeout");
    expect(after).toHaveBeenCalledTimes(1);
    expect(events).toContainEqual(expect.objectContaining({ type: "notice", level: "warn", source: "noisy", message: "an onAbort listener threw: listener bug" }));
  });

  test("a spread copy of the context still carries a working signal", async () => {
    let copy: ToolCallContext | undefined;
    const { host } = await hostWithTools([
      tool(
        "spreads",
        (_i, ctx) => {
          copy = { ...ctx };
          return new Promise<string>(() => {});
        },
        { timeoutMs: 30 },
      ),
    ]);
    expect((await host.tools.call("spreads", {})).outcome).toBe("timeout");
    expect(copy!.signal).toBeInstanceOf(AbortSignal);
    expect(copy!.signal.aborted).toBe(true);
  });
});

describe("output cap", () => {
  test("default 64 KB: the head is kept and a line says how many bytes were cut", async () => {
    const { host, audit } = await hostWithTools([tool("big", () => "a".repeat(100_000))]);
    const r = await host.tools.call("big", {});
    expect(r.truncated).toBe(true);
    expect(r.ok).toBe(true);
    const [head, note] = r.output.split("\n");
    expect(head).toBe("a".repeat(65_536));
    expect(note).toBe("[output truncated: 34464 of 100000 bytes cut; the first 65536 bytes are shown]");
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ outputBytes: 100_000, truncated: true });
  });

  test("output at the cap is not cut, and is not marked truncated", async () => {
    const { host } = await hostWithTools([tool("exact", () => "b".repeat(65_536))]);
    const r = await host.tools.call("exact", {});
    expect(r.output).toBe("b".repeat(65_536));
    expect(r.truncated).toBeUndefined();
  });

  test("per-tool cap, global config cap and per-tool config override", async () => {
    const { host } = await hostWithTools(
      [tool("own", () => "x".repeat(50), { maxOutputBytes: 10 }), tool("global", () => "y".repeat(50)), tool("over_1", () => "z".repeat(50), { maxOutputBytes: 10 })],
      { config: { tools: { maxOutputBytes: 20, overrides: { "over_*": { maxOutputBytes: 30 } } } } },
    );
    expect((await host.tools.call("own", {})).output).toBe(`${"x".repeat(10)}\n[output truncated: 40 of 50 bytes cut; the first 10 bytes are shown]`);
    expect((await host.tools.call("global", {})).output).toMatch(/^y{20}\n\[output truncated: 30 of 50 bytes cut/);
    expect((await host.tools.call("over_1", {})).output).toMatch(/^z{30}\n\[output truncated: 20 of 50 bytes cut/);
  });

  test("a cut never splits a UTF-8 character", async () => {
    const { host } = await hostWithTools([
      tool("accents", () => "é".repeat(100), { maxOutputBytes: 11 }),
      tool("emoji", () => "😀".repeat(10), { maxOutputBytes: 7 }),
    ]);
    const a = await host.tools.call("accents", {});
    expect(a.output.split("\n")[0]).toBe("é".repeat(5));
    expect(a.output).toContain("190 of 200 bytes cut; the first 10 bytes are shown");
    const e = await host.tools.call("emoji", {});
    expect(e.output.split("\n")[0]).toBe("😀");
    expect(e.output).not.toContain("\uFFFD");
  });

  test("error outputs are capped too", async () => {
    const { host } = await hostWithTools([tool("loud_error", () => ({ output: "e".repeat(100), isError: true }), { maxOutputBytes: 10 })]);
    const r = await host.tools.call("loud_error", {});
    expect(r).toMatchObject({ ok: false, outcome: "error", truncated: true });
    expect(r.error?.message).toBe(r.output);
  });
});

describe("tool failures become results, never crashes", () => {
  test("a throwing tool (sync or async) gives an error result with the message; AgentError codes are kept; a path outside the workspace is denied", async () => {
    const { host, audit } = await hostWithTools([
      tool("sync_throw", () => {
        throw new Error("disk full");
      }),
      tool("async_throw", async () => {
        throw new TypeError("bad thing");
      }),
      tool("agent_error", () => {
        throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", "Path is outside the workspace");
      }),
      tool("throws_string", () => {
        throw "a string";
      }),
    ]);
    expect(await host.tools.call("sync_throw", {})).toMatchObject({ ok: false, outcome: "error", output: "Tool sync_throw failed: disk full", error: { code: "E_TOOL_FAILED" } });
    expect((await host.tools.call("async_throw", {})).output).toBe("Tool async_throw failed: bad thing");
    expect(await host.tools.call("agent_error", {})).toMatchObject({ ok: false, outcome: "denied", error: { code: "E_PATH_OUTSIDE_WORKSPACE" } });
    expect((await host.tools.call("throws_string", {})).output).toBe("Tool throws_string failed: a string");
    expect(audit().filter((x) => x.kind === "call").map((x) => x.outcome)).toEqual(["error", "error", "denied", "error"]);
  });

  test.each([
    ["a number", 42, "number"],
    ["null", null, "null"],
    ["undefined", undefined, "undefined"],
    ["an object without output", { text: "hi" }, "object"],
  ])("a tool returning %s gives an error result", async (_c, value, kind) => {
    const { host } = await hostWithTools([tool("garbage", () => value as never)]);
    const r = await host.tools.call("garbage", {});
    expect(r).toMatchObject({ ok: false, outcome: "error" });
    expect(r.output).toBe(`Tool garbage returned an invalid result (${kind}); expected a string or { output: string }.`);
  });

  test("{ output, isError } and { structured } are kept", async () => {
    const { host } = await hostWithTools([
      tool("soft_error", () => ({ output: "not found", isError: true })),
      tool("structured", () => ({ output: "2 items", structured: { items: [1, 2] } })),
    ]);
    expect(await host.tools.call("soft_error", {})).toMatchObject({ ok: false, outcome: "error", output: "not found", error: { code: "E_TOOL_FAILED", message: "not found" } });
    expect(await host.tools.call("structured", {})).toMatchObject({ ok: true, output: "2 items", structured: { items: [1, 2] } });
  });

  test("an unknown tool: E_TOOL_NOT_FOUND, with a suggestion when a name is close", async () => {
    const { host, audit } = await hostWithTools([tool("read_file", () => ""), tool("mcp__fs__list_dir", () => "")]);
    expect(await host.tools.call("read_flie", {})).toMatchObject({ outcome: "error", output: 'Unknown tool "read_flie". Did you mean "read_file"?', error: { code: "E_TOOL_NOT_FOUND" } });
    expect((await host.tools.call("list_dir", {})).output).toContain('"mcp__fs__list_dir"');
    expect((await host.tools.call("zzzzzzzzzz", {})).output).toBe('Unknown tool "zzzzzzzzzz".');
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ source: "unknown", name: "read_flie", outcome: "error" });
  });
});

describe("results, events and afterToolCall", () => {
  test("events: tool_start, tool_progress, tool_end with the call id; the context carries workspace and callId", async () => {
    const events: AgentEvent[] = [];
    let ctxSeen: ToolCallContext | undefined;
    const { host } = await hostWithTools([
      tool("progress", (_i, ctx) => {
        ctxSeen = ctx;
        ctx.progress({ progress: 1, total: 2, message: "half" });
        return "done";
      }),
    ]);
    host.on((e) => void events.push(e));
    const r = await host.tools.call("progress", { a: 1 }, { callId: "call-123" });
    expect(r.callId).toBe("call-123");
    expect(ctxSeen?.callId).toBe("call-123");
    expect(ctxSeen?.workspace.root).toBe(host.workspace.root);
    expect(events.map((e) => e.type)).toEqual(["tool_start", "tool_progress", "tool_end"]);
    expect(events[0]).toMatchObject({ type: "tool_start", callId: "call-123", name: "progress", input: { a: 1 }, risk: "read", source: "test" });
    expect(events[1]).toMatchObject({ progress: 1, total: 2, message: "half", callId: "call-123" });
    expect(events[2]).toMatchObject({ type: "tool_end", outcome: "ok", outputBytes: 4, truncated: false });
    expect(typeof r.durationMs).toBe("number");
  });

  test("a denied or invalid call ends with a tool_end event carrying the error", async () => {
    const events: AgentEvent[] = [];
    const { host } = await hostWithTools([tool("w", () => "x", { risk: "write" })]);
    host.on((e) => void events.push(e));
    await host.tools.call("w", {});
    expect(events.at(-1)).toMatchObject({ type: "tool_end", outcome: "denied", error: expect.stringContaining("Permission denied") });
  });

  test("afterToolCall may transform the result; returning nothing keeps it", async () => {
    const { host } = await hostWithTools([tool("t", () => "raw")], {
      plugin: { afterToolCall: (res) => ({ ...res, output: res.output.toUpperCase() }) },
      plugins: [{ name: "observer", afterToolCall: () => undefined }],
    });
    expect((await host.tools.call("t", {})).output).toBe("RAW");
  });

  test("afterToolCall returning something that is not a result is ignored with a warning", async () => {
    const notices: string[] = [];
    const { host } = await hostWithTools([tool("t", () => "raw")], { plugin: { afterToolCall: () => "just a string" as never } });
    host.on((e) => void (e.type === "notice" && notices.push(e.message)));
    expect(await host.tools.call("t", {})).toMatchObject({ ok: true, outcome: "ok", output: "raw" });
    expect(notices).toEqual(["Plugin test failed in afterToolCall: returned a string instead of a tool result; it was ignored"]);
  });

  test("afterToolCall can turn a success into an error, and the audit follows", async () => {
    const { host, audit } = await hostWithTools([tool("t", () => "raw")], {
      plugin: { afterToolCall: (res) => ({ ...res, ok: false, outcome: "error", output: "rejected by policy", error: { code: "E_POLICY", message: "rejected by policy" } }) },
    });
    expect(await host.tools.call("t", {})).toMatchObject({ ok: false, outcome: "error", error: { code: "E_POLICY" } });
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ outcome: "error", error: "rejected by policy" });
  });

  test("parallel calls do not interfere", async () => {
    const { host } = await hostWithTools([tool("slow_echo", async (i) => {
      await new Promise((r) => setTimeout(r, 5 * Number((i as { n: number }).n % 3)));
      return String((i as { n: number }).n);
    })]);
    const results = await Promise.all(Array.from({ length: 30 }, (_, n) => host.tools.call("slow_echo", { n })));
    expect(results.map((r) => r.output)).toEqual(Array.from({ length: 30 }, (_, n) => String(n)));
    expect(new Set(results.map((r) => r.callId)).size).toBe(30);
  });
});
