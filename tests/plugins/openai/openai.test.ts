/** The openai provider plugin against the fake Chat Completions server, over HTTP. */
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
  for (const k of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"]) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

/** `config`: the `providers` section to use instead of the default (pointing at the fake server). */
async function provider(
  script: Turn[],
  config?: (srv: FakeServer) => Record<string, Record<string, unknown>>,
  serverOpts: FakeServerOptions = {},
  name = "openai",
): Promise<ModelProvider> {
  srv = await startFake("openai", script, serverOpts);
  t = await openHost("openai", srv, config ? { config: { providers: config(srv) } } : {});
  const p = t.host.providers.get(name);
  if (!p) throw new Error(`provider ${name} not registered`);
  return p;
}

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "gpt-fake",
  system: "Be brief.",
  messages: [{ role: "user", content: "Hi" }],
  tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
  ...over,
});

async function collect(p: ModelProvider, req = request(), signal = new AbortController().signal): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const e of p.stream(req, { signal })) out.push(e);
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
  test("text deltas, assembled tool calls, usage and stop reason", async () => {
    const p = await provider([
      {
        text: "Let me read it.",
        toolCalls: [
          { id: "call_1", name: "read_file", arguments: { path: "a.txt" } },
          { id: "call_2", name: "read_file", rawArguments: "{oops" },
        ],
        usage: { input: 40, output: 9, cacheRead: 16 },
      },
    ]);
    const events = await collect(p);
    const text = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text);
    expect(text.length).toBeGreaterThan(1);
    expect(text.join("")).toBe("Let me read it.");
    expect(events.filter((e) => e.type !== "text_delta")).toEqual([
      { type: "tool_call", call: { id: "call_1", name: "read_file", input: { path: "a.txt" } } },
      { type: "tool_call", call: { id: "call_2", name: "read_file", input: "{oops", inputError: expect.any(String) } },
      { type: "usage", usage: { inputTokens: 40, outputTokens: 9, cacheReadTokens: 16 } },
      { type: "stop", reason: "tool_use" },
    ]);
  });

  test("the request: system message, function tools, streamed usage, bearer key", async () => {
    const p = await provider(["ok"]);
    await collect(p);
    const req = srv!.requests[0];
    expect(req.headers.authorization).toBe("Bearer test-key");
    expect(req.body).toMatchObject({
      model: "gpt-fake",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
      ],
      tools: [{ type: "function", function: { name: "read_file", description: "Read a file", parameters: { type: "object" } } }],
    });
  });

  test("history: assistant tool calls with their arguments, tool results (errors marked)", async () => {
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
              { id: "c1", name: "read_file", input: { path: "a" } },
              { id: "c2", name: "read_file", input: "{bad", inputError: "Unexpected token" },
            ],
          },
          { role: "tool", toolCallId: "c1", name: "read_file", content: "A" },
          { role: "tool", toolCallId: "c2", name: "read_file", content: "bad JSON", isError: true },
        ],
      }),
    );
    expect(srv!.requests[0].status).toBe(200);
    expect(srv!.requests[0].body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
          { id: "c2", type: "function", function: { name: "read_file", arguments: "{bad" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "A" },
      { role: "tool", tool_call_id: "c2", content: "Error: bad JSON" },
    ]);
  });

  test("no tools: the tools field is left out; maxTokens goes as max_tokens to compatible servers", async () => {
    const p = await provider(["ok"], (s) => ({ openai: { baseURL: s.baseURL, apiKey: "k", maxTokens: 256, streamUsage: false } }));
    await collect(p, request({ tools: [] }));
    const body = srv!.requests[0].body;
    expect(body.tools).toBeUndefined();
    expect(body.max_tokens).toBe(256);
    expect(body.stream_options).toBeUndefined();
  });
});

describe("configuration", () => {
  test("key and base URL from OPENAI_API_KEY / OPENAI_BASE_URL", async () => {
    const p = await provider(["ok"], () => ({}));
    process.env.OPENAI_API_KEY = "env-key";
    process.env.OPENAI_BASE_URL = srv!.baseURL;
    await collect(p);
    expect(srv!.requests[0].headers.authorization).toBe("Bearer env-key");
  });

  test("missing key for OpenAI itself: E_MODEL_NO_KEY naming OPENAI_API_KEY, nothing sent", async () => {
    const p = await provider(["ok"], () => ({}));
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    const err = await failure(p);
    expect(err.code).toBe("E_MODEL_NO_KEY");
    expect(err.message).toContain("OPENAI_API_KEY");
    expect(srv!.requests).toHaveLength(0);
  });

  test("invalid provider config: E_MODEL_CONFIG naming the key", async () => {
    const p = await provider(["ok"], () => ({ openai: { baseURL: "not a url" } }));
    const err = await failure(p);
    expect(err.code).toBe("E_MODEL_CONFIG");
    expect(err.message).toContain("providers.openai.baseURL");
  });

  test("presets for local servers need no key; OLLAMA_HOST is honoured", async () => {
    const p = await provider(["from ollama"], () => ({}), { requireKey: false }, "ollama");
    process.env.OLLAMA_HOST = new URL(srv!.url).host;
    const events = await collect(p);
    expect(events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text).join("")).toBe("from ollama");
    expect(t!.host.providers.list().map((x) => x.name)).toEqual(expect.arrayContaining(["openai", "ollama", "lmstudio", "vllm", "llamacpp", "openrouter"]));
  });

  test('a providers entry with type "openai" becomes a provider of that name', async () => {
    srv = await startFake("openai", ["from my server"]);
    t = await openHost("openai", srv, { config: { providers: { myserver: { type: "openai", baseURL: srv.baseURL, apiKey: "mine" } } } });
    const result = await t.host.run("Hi", { model: "myserver:gpt-fake" });
    expect(result).toMatchObject({ ok: true, text: "from my server", model: "myserver:gpt-fake" });
    expect(srv.requests[0].headers.authorization).toBe("Bearer mine");
  });

  test("listModels", async () => {
    const p = await provider([], undefined, { models: ["gpt-a", "gpt-b"] });
    expect(await p.listModels!({ signal: new AbortController().signal })).toEqual(["gpt-a", "gpt-b"]);
  });
});

describe("errors", () => {
  test("401: E_MODEL_AUTH, says which key to check", async () => {
    const p = await provider([], undefined, { requireKey: "the-right-key" });
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_AUTH", retryable: false, status: 401 });
    expect(err.message).toContain("refused the API key");
    expect(err.message).toContain("OPENAI_API_KEY");
  });

  test("404 model: E_MODEL_NOT_FOUND naming the model", async () => {
    const p = await provider([], undefined, { models: ["gpt-other"] });
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_NOT_FOUND", retryable: false });
    expect(err.message).toContain('no model "gpt-fake"');
  });

  test("429: retryable, with the server's retry-after", async () => {
    const p = await provider([{ status: 429, retryAfter: 2 }]);
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_RATE_LIMIT", retryable: true, retryAfterMs: 2000 });
    expect(srv!.requests).toHaveLength(1);
  });

  test("5xx: retryable server error", async () => {
    const p = await provider([{ status: 502 }]);
    expect(await failure(p)).toMatchObject({ code: "E_MODEL_SERVER", retryable: true, status: 502 });
  });

  test("network down: E_MODEL_NETWORK asking whether the server runs", async () => {
    const p = await provider([]);
    await srv!.close();
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_NETWORK", retryable: true });
    expect(err.message).toContain("Could not connect");
    expect(err.message).toContain("Is the server running?");
  });

  test("a stream cut mid-way: E_MODEL_STREAM", async () => {
    const p = await provider([{ text: "abcdefghijklmnop", cutAfter: 3 }]);
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_STREAM", retryable: true });
    expect(err.message).toContain("broke mid-answer");
  });

  test("an error sent inside the stream: retryable server error", async () => {
    const p = await provider([{ text: "abcdefgh", errorAfter: 2 }]);
    const err = await failure(p);
    expect(err).toMatchObject({ code: "E_MODEL_SERVER", retryable: true });
    expect(err.message).toContain("mid-answer");
  });

  test("aborting ends the stream quietly and cancels the request", async () => {
    const p = await provider([{ text: "abcdefgh", stallAfter: 2 }]);
    const controller = new AbortController();
    const events: ModelStreamEvent[] = [];
    for await (const e of p.stream(request(), { signal: controller.signal })) {
      events.push(e);
      controller.abort();
    }
    expect(events).toHaveLength(1);
    expect(events.some((e) => e.type === "stop")).toBe(false);
  });
});
