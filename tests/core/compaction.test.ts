/**
 * Context management (issue 11): compaction near the window (by size), after a context-length error from
 * the API (both providers' real error shapes, through the real SDKs), on demand (`/compact [focus]`),
 * with oversized tool results shortened first, `preCompact` handlers able to block it or add
 * instructions, and the compacted conversation being what a resume gets.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { builtinPlugins } from "../../cli/builtins.js";
import { createHost, z, type AgentEvent, type Plugin, type ToolDefinition } from "../../core/index.js";
import { readSession, sessionFile } from "../../plugins/sessions/index.js";
import { TokenEstimator } from "../../plugins/compaction/context-window.js";
import { contextWindowFor } from "../helpers/models.js";
import { KINDS, openHost, startFake, systemOf, tempDir, toolResults, type FakeServer, type Kind, type TestHost, type Turn } from "./loop-helpers.js";

type Body = Record<string, any>;

const echo: ToolDefinition<{ text: string }> = {
  name: "echo",
  description: "Echo text back",
  risk: "read",
  input: z.object({ text: z.string() }),
  run: ({ text }) => `echo: ${text}`,
};
const big: ToolDefinition<{ n: number }> = {
  name: "big",
  description: "A large output",
  risk: "read",
  input: z.object({ n: z.number() }),
  run: ({ n }) => `HEAD-${"a".repeat(n)}-TAIL`,
};

function systemText(kind: Kind, body: Body): string {
  if (kind === "openai") return body.messages.find((m: { role: string }) => m.role === "system")?.content ?? "";
  return (body.system ?? []).map((b: { text: string }) => b.text).join("");
}
const isSummary = (kind: Kind, body: Body) => systemText(kind, body).startsWith("You summarise a conversation");
const firstUserText = (kind: Kind, body: Body): string => {
  const m = body.messages.find((x: { role: string }) => x.role === "user");
  if (typeof m.content === "string") return m.content;
  return m.content.filter((b: { type: string }) => b.type === "text").map((b: { text: string }) => b.text).join("");
};

const contextLengthError = (kind: Kind): Turn =>
  kind === "anthropic"
    ? { status: 400, error: { type: "invalid_request_error", message: "prompt is too long: 212000 tokens > 200000 maximum" } }
    : { status: 400, error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } };

describe.each(KINDS)("compaction with %s", (kind) => {
  let srv: FakeServer | undefined;
  let t: TestHost | undefined;
  afterEach(async () => {
    await t?.close();
    await srv?.close();
    t = srv = undefined;
  });

  /** A fake whose every request goes to `answer`, with summary requests answered apart. */
  async function setup(answer: (body: Body, n: number) => Turn, extra: Parameters<typeof openHost>[2] = {}) {
    let n = 0;
    const turn = (body: Body): Turn => (isSummary(kind, body) ? { text: "SUMMARY: echoed things; files: none; open: nothing." } : answer(body, n++));
    srv = await startFake(kind, Array.from({ length: 60 }, () => turn as unknown as Turn));
    t = await openHost(kind, srv, { tools: [echo, big], ...extra });
    return { host: t.host, events: t.events, srv };
  }
  const compactions = (events: AgentEvent[]) => events.filter((e): e is Extract<AgentEvent, { type: "compaction" }> => e.type === "compaction");

  test("near the window: older turns summarised, recent ones kept, every request under the window; resume gets the compacted conversation", async () => {
    const window = 3000;
    const { host, events, srv } = await setup(
      (_b, n) => (n < 8 ? { text: `step ${n}`, toolCalls: [{ id: `call_${n}`, name: "echo", arguments: { text: `${n} ${"word ".repeat(300)}` } }] } : { text: "all done" }),
      { config: { contextWindow: window } },
    );
    writeFileSync(path.join(t!.dir, "AGENTS.md"), "Rule: answer briefly.");
    const run = await host.run("Echo eight long texts");
    expect(run).toMatchObject({ ok: true, text: "all done" });
    const c = compactions(events);
    expect(c.length).toBeGreaterThan(0);
    expect(c[0]).toMatchObject({ trigger: "auto", cause: "threshold", window });
    expect(c[0].summarized).toBeGreaterThan(0);
    expect(c[0].tokensAfter).toBeLessThan(c[0].tokensBefore);
    const requests = srv.requests.filter((r) => !isSummary(kind, r.body));
    for (const r of requests) expect(JSON.stringify(r.body).length / 4).toBeLessThan(window);
    // The last request: the summary first, then recent turns verbatim, each call with its result.
    const last = requests.at(-1)!.body;
    expect(firstUserText(kind, last)).toContain("SUMMARY: echoed things");
    expect(toolResults(kind, requests.at(-1)!).at(-1)).toMatchObject({ id: "call_7" });
    // Project instructions are in the system prompt, rebuilt for every request: compaction cannot lose them.
    expect(systemText(kind, last)).toContain("Rule: answer briefly.");
    // The summary request carried the older turns as text, and the instructions a user would expect.
    const summaryReq = srv.requests.find((r) => isSummary(kind, r.body))!.body;
    expect(firstUserText(kind, summaryReq)).toMatch(/Echo eight long texts[\s\S]*Files: every file read, created or changed[\s\S]*Open: what is left to do/);
    expect(summaryReq.tools ?? []).toEqual([]);
    // Stored: a compaction record; reading the transcript gives the conversation as it is now.
    const file = sessionFile(t!.dir, host.session.id);
    expect(readFileSync(file, "utf8")).toMatch(/"type":"compaction","time":"[^"]+","trigger":"auto","summary":"SUMMARY: echoed things/);
    const saved = readSession(file);
    expect(saved.messages).toEqual(host.session.messages);
    expect(saved.messages[0].content).toMatch(/^\[Summary of the earlier conversation/);
  });

  test("a context-length error from the API: one compaction, the request sent again, the run goes on", async () => {
    let refused = 0;
    const { host, events, srv } = await setup((body, n) => {
      if (n === 0) return { text: "first answer" };
      if (n === 1) return { text: "", toolCalls: [{ id: "call_cl", name: "echo", arguments: { text: "x" } }] };
      if (n === 2) {
        refused++;
        return contextLengthError(kind);
      }
      return { text: `answered with ${body.messages.length} messages` };
    });
    await host.run("first question");
    const run = await host.run("second question");
    expect(refused).toBe(1);
    expect(run).toMatchObject({ ok: true });
    expect(compactions(events)).toMatchObject([{ trigger: "auto", cause: "context_length" }]);
    expect(srv.requests.filter((r) => isSummary(kind, r.body))).toHaveLength(1);
    // The retried request still holds the call and its result (never split).
    expect(toolResults(kind, srv.requests.at(-1)!)).toEqual([{ id: "call_cl", content: "echo: x", isError: false }]);
  });

  test("refused as too long again after compacting: the run ends with the error (no loop)", async () => {
    const { host, events, srv } = await setup((_b, n) => (n === 0 ? { text: "first" } : contextLengthError(kind)));
    await host.run("first question");
    const run = await host.run("second question");
    expect(run).toMatchObject({ ok: false, reason: "error", error: { code: "E_MODEL_CONTEXT_LENGTH" } });
    expect(run.error!.message).toMatch(/too long for the model's context window .*\(still too long after compacting once; the conversation is assumed to fit in 128000 tokens; if the model's window is smaller, set contextWindow in the config\)$/);
    expect(compactions(events)).toHaveLength(1);
    expect(srv.requests.filter((r) => !isSummary(kind, r.body))).toHaveLength(3);
  });

  test("a tool result far larger than the rest is shortened first (head and tail kept, said), with no summary", async () => {
    const { host, events, srv } = await setup((_b, n) => (n === 0 ? { text: "", toolCalls: [{ id: "call_big", name: "big", arguments: { n: 60_000 } }] } : { text: "read it" }), {
      config: { contextWindow: 12_000 },
    });
    expect((await host.run("Get the big thing")).ok).toBe(true);
    expect(compactions(events)).toMatchObject([{ cause: "threshold", summarized: 0, shortened: 1 }]);
    expect(srv.requests.some((r) => isSummary(kind, r.body))).toBe(false);
    const [result] = toolResults(kind, srv.requests[1]);
    expect(result.content.length).toBeLessThan(9000);
    expect(result.content).toMatch(/^HEAD-a+\n\[… \d+ characters cut from the middle of this tool result to fit the context window …\]\na+-TAIL$/);
  });

  test("/compact [focus]: summarised on demand with the focus; preCompact may add instructions or block", async () => {
    const seen: unknown[] = [];
    const policy: Plugin = {
      name: "compact-policy",
      preCompact(info) {
        seen.push(info);
        return info.instructions.includes("never") ? { block: "not today" } : { instructions: "Keep the ticket number." };
      },
    };
    const { host, events, srv } = await setup((_b, n) => ({ text: `answer ${n}` }), { plugins: [policy] });
    await host.run("question one");
    await host.run("question two");
    const out = await host.commands.run("/compact keep the API names", { asUser: true });
    expect(out.output).toMatch(/^Compacted: 2 of 4 messages summarised; about \d+ → \d+ tokens\.$/);
    expect(seen).toMatchObject([{ trigger: "manual", instructions: "keep the API names", sessionId: host.session.id }]);
    const summaryReq = srv.requests.find((r) => isSummary(kind, r.body))!.body;
    expect(firstUserText(kind, summaryReq)).toMatch(/Also keep, as the user asked: keep the API names\nKeep the ticket number\./);
    expect(compactions(events)).toMatchObject([{ trigger: "manual", cause: "manual", messagesBefore: 4, messagesAfter: 3 }]);
    expect(host.session.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);

    const blocked = await host.commands.run("/compact never", { asUser: true });
    expect(blocked.output).toBe("Not compacted: blocked by plugin compact-policy: not today.");
    expect(host.session.messages).toHaveLength(3);
    // The next run goes on from the compacted conversation.
    expect((await host.run("question three")).ok).toBe(true);
    expect(firstUserText(kind, srv.requests.at(-1)!.body)).toContain("SUMMARY: echoed things");
  });
});

test("a skill the model loaded is re-attached to the system prompt once the conversation is compacted", async () => {
  const tmp = await tempDir("agent-compact-skill-");
  const srv = await startFake("openai", [
    { toolCalls: [{ id: "call_skill", name: "skill", arguments: { name: "deploy-guide" } }] },
    { text: "Loaded it." },
    { text: "SUMMARY: loaded the deploy guide." },
    { text: "Deploying." },
  ]);
  try {
    mkdirSync(path.join(tmp.dir, ".agent", "skills", "deploy-guide"), { recursive: true });
    writeFileSync(path.join(tmp.dir, "package.json"), "{}");
    writeFileSync(path.join(tmp.dir, ".agent", "skills", "deploy-guide", "SKILL.md"), "---\nname: deploy-guide\ndescription: How to deploy this project\n---\nAlways run the smoke test after deploying.\n");
    const host = await createHost({
      cwd: tmp.dir,
      userConfigDir: false,
      builtins: builtinPlugins.filter((b) => ["openai", "sessions", "compaction", "commands", "skills"].includes(b.name)),
      config: { model: "openai:test-model", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } } },
    });
    try {
      await host.run("Load the deploy guide");
      expect(toolResults("openai", srv.requests[1])[0].content).toContain("Always run the smoke test");
      expect(systemOf("openai", srv.requests[1])).not.toContain("re-attached after it was compacted");
      expect((await host.commands.run("/compact", { asUser: true })).output).toMatch(/^Compacted: /);
      await host.run("Deploy now");
      const system = systemOf("openai", srv.requests[3]);
      expect(system).toContain('# Skill "deploy-guide" (loaded earlier in this conversation; re-attached after it was compacted)');
      expect(system).toContain("Always run the smoke test after deploying.");
    } finally {
      await host.close();
    }
  } finally {
    await srv.close();
    await tmp.remove();
  }
});

test("the context window: config first, then the model table, then the default; the estimate learns from reported usage", () => {
  expect(contextWindowFor("anthropic:claude-sonnet-5-5")).toEqual({ tokens: 200_000, source: "table" });
  expect(contextWindowFor("openai:gpt-5.4").tokens).toBe(400_000);
  expect(contextWindowFor("openrouter:openai/gpt-4o-mini").tokens).toBe(128_000);
  expect(contextWindowFor("ollama:qwen2.5-coder")).toEqual({ tokens: 128_000, source: "default" });
  expect(contextWindowFor("ollama:qwen2.5-coder", 32_768)).toEqual({ tokens: 32_768, source: "config" });
  const e = new TokenEstimator();
  expect(e.tokens(4000)).toBe(1000);
  e.sent(4000);
  e.reported(1500); // the provider counts 1.5x what characters / 4 says
  expect(e.tokens(4000)).toBe(1500);
  e.reported(1_000_000); // a nonsense report is bounded
  expect(e.correction).toBe(4);
});
