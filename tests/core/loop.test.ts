/**
 * The agent loop against the fake model servers, through the real provider plugins, for both wire
 * formats: every scripted scenario of issue 4 (text only, one tool call, several calls in one turn,
 * a denied tool, invalid arguments, a tool that times out, a stream cut mid-way, 429 then success).
 */
import { afterEach, describe, expect, test } from "vitest";
import { z, type AgentEvent, type ToolDefinition } from "../../core/index.js";
import { KINDS, openHost, startFake, toolResults, type FakeServer, type TestHost, type Turn } from "./loop-helpers.js";

const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

describe.each(KINDS)("the loop with %s", (kind) => {
  let srv: FakeServer | undefined;
  let t: TestHost | undefined;
  afterEach(async () => {
    await t?.close();
    await srv?.close();
    t = srv = undefined;
  });

  async function setup(script: Turn[], tools: ToolDefinition[] = [], extra: Parameters<typeof openHost>[2] = {}) {
    srv = await startFake(kind, script);
    t = await openHost(kind, srv, { tools, ...extra });
    return { srv, t, host: t.host, events: t.events };
  }

  const types = (events: AgentEvent[]) => events.map((e) => e.type).filter((x) => x !== "text_delta");

  test("text only: streams the answer, sums usage, ends with end_turn", async () => {
    const { host, events } = await setup([{ text: "Hello there, world!", usage: { input: 12, output: 7 } }]);
    const result = await host.run("Say hello");

    expect(result).toMatchObject({ ok: true, reason: "end_turn", text: "Hello there, world!", turns: 1, toolCalls: 0 });
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
    expect(types(events)).toEqual(["session_start", "user_message", "turn_start", "usage", "assistant_message", "session_end"]);
    const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there, world!");
    expect(host.session.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
  });

  test("one tool call: runs through the gate with the model's call id, result goes back", async () => {
    const seen: unknown[] = [];
    const echo: ToolDefinition<{ text: string }> = {
      name: "echo",
      description: "Echo text back",
      risk: "read",
      input: z.object({ text: z.string() }),
      run: ({ text }) => {
        seen.push(text);
        return `echo: ${text}`;
      },
    };
    const { host, events, srv } = await setup(
      [{ text: "Checking.", toolCalls: [{ id: "call_echo_1", name: "echo", arguments: { text: "ping" } }], usage: { input: 10, output: 3 } }, { text: "Got it.", usage: { input: 20, output: 2 } }],
      [echo],
    );
    const result = await host.run("Echo ping");

    expect(result).toMatchObject({ ok: true, reason: "end_turn", text: "Got it.", turns: 2, toolCalls: 1 });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 5 });
    expect(seen).toEqual(["ping"]);
    const start = events.find((e) => e.type === "tool_start");
    expect(start).toMatchObject({ callId: "call_echo_1", name: "echo", input: { text: "ping" }, risk: "read" });
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ callId: "call_echo_1", outcome: "ok" });
    expect(toolResults(kind, srv.requests[1])).toEqual([{ id: "call_echo_1", content: "echo: ping", isError: false }]);
  });

  test("several calls in one turn: read-only ones run together, results come back in call order", async () => {
    // Each read tool waits until all three have started: run one at a time, they would time out.
    let started = 0;
    let finished = 0;
    let allStarted!: () => void;
    const barrier = new Promise<void>((r) => (allStarted = r));
    const order: string[] = [];
    const reader = (name: string, finishLast: boolean): ToolDefinition => ({
      name,
      description: `read ${name}`,
      risk: "read",
      timeoutMs: 2000,
      inputSchema: { type: "object", properties: {} },
      async run() {
        if (++started === 3) allStarted();
        await barrier;
        // The first call finishes last, so completion order differs from call order.
        if (finishLast) while (finished < 2) await new Promise((r) => setTimeout(r, 1));
        finished++;
        order.push(name);
        return `${name} done`;
      },
    });
    const { host, srv, events } = await setup(
      [
        {
          toolCalls: [
            { id: "c1", name: "read_a", arguments: {} },
            { id: "c2", name: "read_b", arguments: {} },
            { id: "c3", name: "read_c", arguments: {} },
          ],
        },
        "All three read.",
      ],
      [reader("read_a", true), reader("read_b", false), reader("read_c", false)],
    );
    const result = await host.run("Read everything");

    expect(result).toMatchObject({ ok: true, toolCalls: 3 });
    expect(events.filter((e) => e.type === "tool_end").map((e) => (e as { outcome: string }).outcome)).toEqual(["ok", "ok", "ok"]);
    expect(order.at(-1)).toBe("read_a");
    expect(toolResults(kind, srv.requests[1]).map((r) => [r.id, r.content])).toEqual([
      ["c1", "read_a done"],
      ["c2", "read_b done"],
      ["c3", "read_c done"],
    ]);
  });

  test("a tool that is not read-only runs alone, in order between the read-only ones", async () => {
    const log: string[] = [];
    const tool = (name: string, risk: "read" | "write"): ToolDefinition => ({
      name,
      description: name,
      risk,
      inputSchema: { type: "object" },
      async run() {
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`end ${name}`);
        return name;
      },
    });
    const { host, srv } = await setup(
      [{ toolCalls: [{ id: "a", name: "r1", arguments: {} }, { id: "b", name: "w1", arguments: {} }, { id: "c", name: "r2", arguments: {} }] }, "Done."],
      [tool("r1", "read"), tool("w1", "write"), tool("r2", "read")],
      { permissionMode: "acceptEdits" },
    );
    const result = await host.run("Mixed");
    expect(result.ok).toBe(true);
    expect(log).toEqual(["start r1", "end r1", "start w1", "end w1", "start r2", "end r2"]);
    expect(toolResults(kind, srv.requests[1]).map((r) => r.content)).toEqual(["r1", "w1", "r2"]);
  });

  test("a denied tool: not run, the model gets the denial and the rule to add, the run goes on", async () => {
    let ran = false;
    const writer: ToolDefinition = {
      name: "write_note",
      description: "Write a note",
      risk: "write",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      run: () => {
        ran = true;
        return "written";
      },
    };
    const { host, srv, events } = await setup([{ toolCalls: [{ id: "w1", name: "write_note", arguments: { text: "x" } }] }, "I could not write the note."], [writer]);
    const result = await host.run("Write a note");

    expect(ran).toBe(false);
    expect(result).toMatchObject({ ok: true, reason: "end_turn", text: "I could not write the note." });
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ name: "write_note", outcome: "denied" });
    const [res] = toolResults(kind, srv.requests[1]);
    expect(res.isError).toBe(true);
    expect(res.content).toContain("Permission denied");
    expect(res.content).toContain('"write_note"');
  });

  test("invalid arguments: the tool does not run and the model learns which field is wrong", async () => {
    let ran = false;
    const add: ToolDefinition<{ a: number; b: number }> = {
      name: "add",
      description: "Add numbers",
      risk: "read",
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => {
        ran = true;
        return String(a + b);
      },
    };
    const { host, srv, events } = await setup(
      [
        {
          toolCalls: [
            { id: "bad_type", name: "add", arguments: { a: "one", b: 2 } },
            { id: "bad_json", name: "add", rawArguments: '{"a": 1, "b":' },
          ],
        },
        "Fixed my arguments.",
      ],
      [add],
    );
    const result = await host.run("Add");

    expect(ran).toBe(false);
    expect(result.ok).toBe(true);
    expect(events.filter((e) => e.type === "tool_end").map((e) => (e as { outcome: string }).outcome)).toEqual(["invalid", "invalid"]);
    const [typeErr, jsonErr] = toolResults(kind, srv.requests[1]);
    expect(typeErr).toMatchObject({ id: "bad_type", isError: true });
    expect(typeErr.content).toMatch(/Invalid input for add:\n- a: /);
    expect(jsonErr).toMatchObject({ id: "bad_json", isError: true });
    expect(jsonErr.content).toContain("were not valid JSON");
  });

  test("a tool that times out: its signal fires and the model is told it timed out", async () => {
    let signalled = false;
    const hang: ToolDefinition = {
      name: "hang",
      description: "Never finishes",
      risk: "read",
      timeoutMs: 50,
      inputSchema: { type: "object" },
      run: (_input, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            signalled = true;
            reject(signal.reason);
          }),
        ),
    };
    const { host, srv, events } = await setup([{ toolCalls: [{ id: "h1", name: "hang", arguments: {} }] }, "It timed out."], [hang]);
    const result = await host.run("Hang");

    expect(signalled).toBe(true);
    expect(result).toMatchObject({ ok: true, text: "It timed out." });
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ outcome: "timeout" });
    const [res] = toolResults(kind, srv.requests[1]);
    expect(res.isError).toBe(true);
    expect(res.content).toContain("timed out after 50 ms");
  });

  test("a stream cut mid-way is retried; the run finishes with the retried answer", async () => {
    const { host, srv, events } = await setup([{ text: "This answer will be cut off before the end", cutAfter: 4 }, "Second try worked."]);
    const result = await host.run("Go", { retry: FAST_RETRY });

    expect(result).toMatchObject({ ok: true, text: "Second try worked.", turns: 1 });
    expect(srv.requests.map((r) => r.outcome)).toEqual(["cut", "done"]);
    const retry = events.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ attempt: 1, code: "E_MODEL_STREAM" });
    expect((retry as { message: string }).message).toContain("broke mid-answer");
    // Only the retried answer is in the conversation.
    expect(host.session.messages.at(-1)).toEqual({ role: "assistant", content: "Second try worked." });
  });

  test("429 then success: waits as long as retry-after says, then succeeds", async () => {
    const { host, srv, events } = await setup([{ status: 429, retryAfterMs: 30 }, "After the rate limit."]);
    const result = await host.run("Go");

    expect(result).toMatchObject({ ok: true, text: "After the rate limit." });
    expect(srv.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(events.find((e) => e.type === "retry")).toMatchObject({ attempt: 1, delayMs: 30, code: "E_MODEL_RATE_LIMIT" });
  });

  test("retries are bounded: persistent 5xx ends the run with an error", async () => {
    const { host, srv, events } = await setup([{ status: 500 }, { status: 503 }, { status: 500 }]);
    const result = await host.run("Go", { retry: { ...FAST_RETRY, maxAttempts: 3 } });

    expect(srv.requests).toHaveLength(3);
    expect(result).toMatchObject({ ok: false, reason: "error", error: { code: "E_MODEL_SERVER" } });
    expect(result.error!.message).toContain("gave up after 3 attempts");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(events.at(-2)).toMatchObject({ type: "error", code: "E_MODEL_SERVER" });
    expect(events.at(-1)).toMatchObject({ type: "session_end", reason: "error", error: { code: "E_MODEL_SERVER" } });
  });

  test("401 is not retried and names where the key comes from", async () => {
    const { host, srv } = await setup([{ status: 401 }]);
    const result = await host.run("Go");
    expect(srv.requests).toHaveLength(1);
    expect(result).toMatchObject({ reason: "error", error: { code: "E_MODEL_AUTH" } });
    expect(result.error!.message).toContain(kind === "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
  });
});
