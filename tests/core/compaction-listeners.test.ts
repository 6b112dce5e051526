/**
 * Many compactions in one run (issue 20): each summary request used to hand the run's own signal to the
 * provider's SDK, which leaves an abort listener on it, so the eleventh printed MaxListenersExceededWarning.
 * Real providers (openai and anthropic plugins) against the fake server.
 */
import { afterEach, describe, expect, test } from "vitest";
import { z, type AgentEvent, type ToolDefinition } from "../../core/index.js";
import { KINDS, openHost, startFake, type FakeServer, type Kind, type TestHost, type Turn } from "./loop-helpers.js";

type Body = Record<string, any>;

const echo: ToolDefinition<{ text: string }> = {
  name: "echo",
  description: "Echo text back",
  risk: "read",
  input: z.object({ text: z.string() }),
  run: ({ text }) => `echo: ${text}`,
};

function isSummary(kind: Kind, body: Body): boolean {
  const system = kind === "openai" ? (body.messages.find((m: { role: string }) => m.role === "system")?.content ?? "") : (body.system ?? []).map((b: { text: string }) => b.text).join("");
  return system.startsWith("You summarise a conversation");
}

describe.each(KINDS)("with %s", (kind) => {
  let srv: FakeServer | undefined;
  let t: TestHost | undefined;
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  afterEach(async () => {
    process.off("warning", onWarning);
    await t?.close();
    await srv?.close();
    t = srv = undefined;
  });

  test("fifteen and more compactions in one run: no MaxListenersExceededWarning, and the run ends well", { timeout: 120_000 }, async () => {
    process.on("warning", onWarning);
    const STEPS = 40;
    let n = 0;
    const turn = (body: Body): Turn => {
      if (isSummary(kind, body)) return { text: "SUMMARY: echoed things." };
      const i = n++;
      return i < STEPS ? { text: `step ${i}`, toolCalls: [{ id: `call_${i}`, name: "echo", arguments: { text: `${i} ${"word ".repeat(400)}` } }] } : { text: "all done" };
    };
    srv = await startFake(kind, Array.from({ length: 200 }, () => turn as unknown as Turn));
    t = await openHost(kind, srv, { tools: [echo], config: { contextWindow: 3000 } });
    const run = await t.host.run("Echo forty long texts");
    expect(run).toMatchObject({ ok: true, text: "all done" });
    const compactions = t.events.filter((e: AgentEvent) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThan(15);
    // Warnings are emitted on the next tick: let one pass before looking.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  });
});
