/**
 * The kernel's part of context management (issue 21): it hands each model request's size to `fitContext`, a
 * failed request to `modelError`, `session.compact()` to `compactAsked`, and compacts when a handler asks
 * (`point.compact`: `preCompact`, `compact`, the event). Here a context plugin of its own uses them; a host
 * without one never compacts.
 */
import { afterEach, expect, test } from "vitest";
import { ModelError, type AgentEvent, type ModelProvider, type ModelRequest, type Plugin } from "../../core/index.js";
import type { CompactionAsk, ModelErrorInfo, ModelTurnPoint } from "../../core/embed.js";
import { createTestHost, type TestHost } from "../../testing/index.js";

let t: TestHost | undefined;
afterEach(async () => t?.close());

const ask = (cause: CompactionAsk["cause"]): CompactionAsk => ({ trigger: cause === "manual" ? "manual" : "auto", cause, window: 1000, targetTokens: 500, charsPerToken: 4, tokens: (chars) => Math.ceil(chars / 4) });

/** A model that refuses its first `refusals` requests as too long, then answers "ok". */
function refusing(refusals: number): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "refusing",
    requests,
    async *stream(request) {
      requests.push(structuredClone(request));
      if (requests.length <= refusals) throw new ModelError("E_MODEL_CONTEXT_LENGTH", "too long for the model's context window", { provider: "refusing" });
      yield { type: "text_delta", text: "ok" };
      yield { type: "stop", reason: "end_turn" };
    },
  };
}

/** Keeps only the last message (the `compact` hook's handler). */
const keepLast: Plugin = {
  name: "keep-last",
  setup: (ctx) => ctx.hooks.compact.tap("keep-last", (r) => ({ ok: true, shortened: 0, summarized: r.messages.length - 1, summary: "S", messages: [r.messages.at(-1)!] as never })),
};

test("a host without a context plugin never compacts, and session.compact() says so", async () => {
  t = await createTestHost({ plugins: [keepLast], model: [{ text: "a" }] });
  await t.run("hello");
  await expect(t.host.session.compact()).rejects.toThrow("Compaction is not available in this host.");
});

test("fitContext sees each request's size; a compaction there rebuilds the request and shows it again, compacted", async () => {
  const seen: Pick<ModelTurnPoint, "turn" | "compacted" | "chars">[] = [];
  const events: AgentEvent[] = [];
  const manager: Plugin = {
    name: "manager",
    setup(ctx) {
      ctx.hooks.fitContext.tap("manager", async (point) => {
        seen.push({ turn: point.turn, compacted: point.compacted, chars: point.chars });
        expect(Object.isFrozen(point)).toBe(true);
        if (point.turn === 2 && !point.compacted) expect(await point.compact(ask("threshold"))).toMatchObject({ ok: true, summarized: 2 });
      });
      ctx.hooks.event.tap({ name: "manager", types: ["compaction"] }, (e) => void events.push(e));
    },
  };
  t = await createTestHost({ plugins: [keepLast, manager], model: [{ toolCalls: [{ name: "nothing", input: {} }] }, { text: "done" }] });
  await t.run("hello");
  expect(seen.map(({ turn, compacted }) => [turn, compacted])).toEqual([
    [1, false],
    [2, false],
    [2, true],
  ]);
  expect(seen.every((s) => s.chars > 0)).toBe(true);
  // The second request went with the compacted conversation: the unknown tool's result only.
  expect(t.model!.requests[1].messages).toHaveLength(1);
  expect(events).toMatchObject([{ type: "compaction", trigger: "auto", cause: "threshold", window: 1000, messagesBefore: 3, messagesAfter: 1 }]);
});

test("modelError: { retry } sends the request again once; a second failure is handed over with retried, and its note ends the run", async () => {
  const failures: Pick<ModelErrorInfo, "error" | "retried">[] = [];
  const manager = (note: boolean): Plugin => ({
    name: "manager",
    setup: (ctx) =>
      ctx.hooks.modelError.tap("manager", async (f) => {
        failures.push({ error: f.error, retried: f.retried });
        if (f.retried) return note ? { note: "still too long" } : undefined;
        await f.compact(ask("context_length"));
        return { retry: true };
      }),
  });
  const once = refusing(1);
  t = await createTestHost({ plugins: [keepLast, manager(true), { name: "m", providers: [once] }], config: { model: "refusing:x" } });
  expect(await t.run("hello")).toMatchObject({ ok: true, text: "ok" });
  expect(once.requests).toHaveLength(2);
  expect(failures).toEqual([{ error: { code: "E_MODEL_CONTEXT_LENGTH", message: expect.stringContaining("too long") }, retried: false }]);
  await t.close();

  failures.length = 0;
  const always = refusing(5);
  t = await createTestHost({ plugins: [keepLast, manager(true), { name: "m", providers: [always] }], config: { model: "refusing:x" } });
  const run = await t.run("hello");
  expect(run.error?.message).toMatch(/too long for the model's context window \(still too long\)$/);
  expect(always.requests).toHaveLength(2);
  expect(failures.map((f) => f.retried)).toEqual([false, true]);
});

test("compactAsked: session.compact() is the context plugin's, with the user's instructions; its outcome is what compact() resolves with", async () => {
  let instructions: string | undefined;
  const manager: Plugin = {
    name: "manager",
    setup: (ctx) =>
      ctx.hooks.compactAsked.tap("manager", async (point) => {
        instructions = point.instructions;
        await point.compact({ ...ask("manual"), instructions: point.instructions });
      }),
  };
  t = await createTestHost({ plugins: [keepLast, manager], model: [{ text: "a" }, { text: "b" }] });
  await t.run("one");
  await t.run("two");
  expect(await t.host.session.compact({ instructions: "keep it" })).toMatchObject({ ok: true, summarized: 3, summary: "S" });
  expect(instructions).toBe("keep it");
  expect(t.host.session.messages).toEqual([{ role: "assistant", content: "b" }]);
});
