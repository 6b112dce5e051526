/** The anthropic provider plugin against the fake Messages server, over HTTP. */
import { afterEach, describe, expect, test } from "vitest";
import { ModelError, type ModelProvider, type ModelRequest, type ModelStreamEvent } from "../../../core/index.js";
import { openHost, startFake, type FakeServer, type FakeServerOptions, type TestHost, type Turn } from "../../core/loop-helpers.js";

let srv: FakeServer | undefined;
let t: TestHost | undefined;
const savedEnv = { ...process.env };
afterEach(async () => {
  await t?.close();
  await srv?.close();
  t = srv = undefined;
  for (const k of ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"]) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

/** `config`: the `providers` section to use instead of the default (pointing at the fake server). */
async function provider(script: Turn[], config?: (srv: FakeServer) => Record<string, Record<string, unknown>>, serverOpts: FakeServerOptions = {}): Promise<ModelProvider> {
  srv = await startFake("anthropic", script, serverOpts);
  t = await openHost("anthropic", srv, config ? { config: { providers: config(srv) } } : {});
  return t.host.providers.get("anthropic")!;
}

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "claude-fake",
  system: "Be brief.",
  messages: [{ role: "user", content: "Hi" }],
  tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
  ...over,
});

async function collect(p: ModelProvider, req = request()): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const e of p.stream(req, { signal: new AbortController().signal })) out.push(e);
  return out;
}

async function failure(p: ModelProvider, req = request()): Promise<ModelError> {
  const err = await collect(p, req).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

describe("streaming", () => {
  test("text deltas, tool_use blocks, usage with cache tokens, stop reason", async () => {
    const p = await provider([
      {
        thinking: "hidden reasoning",
        text: "Let me read it.",
        toolCalls: [{ id: "toolu_1", name: "read_file", arguments: { path: "a.txt" } }],
        usage: { input: 10, cacheRead: 30, cacheWrite: 5, output: 12 },
      },
    ]);
    const events = await collect(p);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe("Let me read it.");
    expect(events.filter((e) => e.type !== "text_delta")).toEqual([
      { type: "tool_call", call: { id: "toolu_1", name: "read_file", input: { path: "a.txt" } } },
      { type: "usage", usage: { inputTokens: 45, outputTokens: 12, cacheReadTokens: 30, cacheWriteTokens: 5 } },
      { type: "stop", reason: "tool_use" },
    ]);
  });

  test("the request: cached system block, tools with input_schema, max_tokens, version header", async () => {
    const p = await provider(["ok"]);
    await collect(p);
    const req = srv!.requests[0];
    expect(req.headers["anthropic-version"]).toBeTruthy();
    expect(req.body).toMatchObject({
      model: "claude-fake",
      max_tokens: 8192,
      stream: true,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "read_file", description: "Read a file", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] }],
    });
  });

  test("history: tool results of a turn in one user message, errors flagged, empty text dropped", async () => {
    const p = await provider(["ok"]);
    await collect(
      p,
      request({
        messages: [
          { role: "user", content: "Read two files" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { id: "t1", name: "read_file", input: { path: "a" } },
              { id: "t2", name: "read_file", input: "{bad", inputError: "Unexpected end" },
            ],
          },
          { role: "tool", toolCallId: "t1", name: "read_file", content: "A" },
          { role: "tool", toolCallId: "t2", name: "read_file", content: "bad JSON", isError: true },
          { role: "assistant", content: "" },
          { role: "user", content: "And now?" },
        ],
      }),
    );
    expect(srv!.requests[0].status).toBe(200);
    expect(srv!.requests[0].body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Read two files" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "read_file", input: { path: "a" } },
          { type: "tool_use", id: "t2", name: "read_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "A" },
          { type: "tool_result", tool_use_id: "t2", content: "bad JSON", is_error: true },
          { type: "text", text: "And now?", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
  });

  test("promptCaching: false sends no cache markers; maxTokens is configurable", async () => {
    const p = await provider(["ok"], (s) => ({ anthropic: { baseURL: s.baseURL, apiKey: "k", promptCaching: false, maxTokens: 1000 } }));
    await collect(p);
    expect(JSON.stringify(srv!.requests[0].body)).not.toContain("cache_control");
    expect(srv!.requests[0].body.max_tokens).toBe(1000);
  });
});

describe("configuration", () => {
  test("key and base URL from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL", async () => {
    const p = await provider(["ok"], () => ({}), { requireKey: "env-key" });
    process.env.ANTHROPIC_API_KEY = "env-key";
    process.env.ANTHROPIC_BASE_URL = srv!.baseURL;
    const events = await collect(p);
    expect(events.at(-1)).toEqual({ type: "stop", reason: "end_turn" });
  });

  test("missing key: E_MODEL_NO_KEY naming ANTHROPIC_API_KEY, nothing sent", async () => {
    const p = await provider(["ok"], () => ({}));
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_AUTH_TOKEN;
    delete process.env.ANTHROPIC_BASE_URL;
    const err = await failure(p);
    expect(err.code).toBe("E_MODEL_NO_KEY");
    expect(err.message).toContain("ANTHROPIC_API_KEY");
    expect(srv!.requests).toHaveLength(0);
  });

  test('a providers entry with type "anthropic" becomes a provider of that name', async () => {
    srv = await startFake("anthropic", ["via the gateway"]);
    t = await openHost("anthropic", srv, { config: { providers: { gateway: { type: "anthropic", baseURL: srv.baseURL, apiKey: "g" } } } });
    const result = await t.host.run("Hi", { model: "gateway:claude-fake" });
    expect(result).toMatchObject({ ok: true, text: "via the gateway" });
  });

  test("listModels", async () => {
    const p = await provider([], undefined, { models: ["claude-a", "claude-b"] });
    expect(await p.listModels!({ signal: new AbortController().signal })).toEqual(["claude-a", "claude-b"]);
  });
});

describe("errors", () => {
  test("401: E_MODEL_AUTH, says which key to check", async () => {
    const p = await provider([], undefined, { requireKey: "right" });
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_AUTH", retryable: false });
    expect(err.message).toContain("ANTHROPIC_API_KEY");
  });

  test("404 model: E_MODEL_NOT_FOUND naming the model", async () => {
    const p = await provider([], undefined, { models: ["claude-other"] });
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_NOT_FOUND" });
    expect(err.message).toContain('no model "claude-fake"');
  });

  test("429 with retry-after-ms, 529 overloaded: retryable", async () => {
    const p = await provider([{ status: 429, retryAfterMs: 1500 }, { status: 529 }]);
    expect(await failure(p)).toMatchObject({ code: "E_MODEL_RATE_LIMIT", retryable: true, retryAfterMs: 1500 });
    expect(await failure(p)).toMatchObject({ code: "E_MODEL_SERVER", retryable: true, status: 529 });
  });

  test("an error event inside the stream (overloaded): retryable", async () => {
    const p = await provider([{ text: "abcdefgh", errorAfter: 4 }]);
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_SERVER", retryable: true });
    expect(err.message).toContain("overloaded_error");
  });

  test("a stream cut mid-way: E_MODEL_STREAM", async () => {
    const p = await provider([{ text: "abcdefghijkl", cutAfter: 5 }]);
    expect(await failure(p)).toMatchObject({ code: "E_MODEL_STREAM", retryable: true });
  });

  test("network down: E_MODEL_NETWORK", async () => {
    const p = await provider([]);
    await srv!.close();
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_NETWORK", retryable: true });
    expect(err.message).toContain("Is the server running?");
  });
});
