/**
 * Sessions on disk (issue 11): every conversation saved as `.agent/sessions/<id>.jsonl`, continued,
 * resumed by id (or a prefix), forked, listed, pruned; a damaged tail resumes from the last complete
 * turn; two projects never see each other's sessions. Through the real provider plugins against the
 * fake model servers, which refuse tool results whose call ids do not match (as the real APIs do).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { builtinPlugins } from "../../cli/builtins.js";
import { createHost, z, type AgentEvent, type Host, type ToolDefinition } from "../../core/index.js";
import { findSession, listSessions, pruneSessions, readSession, sessionFile } from "../../plugins/sessions/index.js";
import { KINDS, startFake, tempDir, toolResults, type FakeServer, type Kind, type Turn } from "./loop-helpers.js";

const echo: ToolDefinition<{ text: string }> = {
  name: "echo",
  description: "Echo text back",
  risk: "read",
  input: z.object({ text: z.string() }),
  run: ({ text }) => `echo: ${text}`,
};

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function project(): Promise<string> {
  const t = await tempDir("agent-sessions-");
  writeFileSync(path.join(t.dir, "package.json"), "{}\n");
  cleanups.push(t.remove);
  return t.dir;
}

async function fake(kind: Kind, script: Turn[]): Promise<FakeServer> {
  const srv = await startFake(kind, script);
  cleanups.push(() => srv.close());
  return srv;
}

async function hostIn(dir: string, kind: Kind, srv: FakeServer, config: Record<string, unknown> = {}): Promise<{ host: Host; events: AgentEvent[] }> {
  const host = await createHost({
    cwd: dir,
    userConfigDir: false,
    builtins: builtinPlugins.filter((b) => ["openai", "anthropic", "sessions", "commands"].includes(b.name)),
    plugins: [{ name: "test-tools", tools: [echo] }],
    config: { model: `${kind}:test-model`, providers: { [kind]: { baseURL: srv.baseURL, apiKey: "k" } }, ...config },
  });
  cleanups.push(() => host.close());
  const events: AgentEvent[] = [];
  host.on((e) => events.push(e));
  return { host, events };
}

const userTextsOf = (body: { messages: { role: string; content: unknown }[] }) => body.messages.filter((m) => m.role === "user").map((m) => m.content);
const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(KINDS)("sessions with %s", (kind) => {
  test("saved as JSONL (0600 in a 0700 folder, git-ignored); continued exactly, tool-call ids included", async () => {
    const dir = await project();
    const srv = await fake(kind, [
      { text: "Checking.", toolCalls: [{ id: "call_s1", name: "echo", arguments: { text: "one" } }], usage: { input: 50, output: 5 } },
      { text: "It said one.", usage: { input: 60, output: 4 } },
      { text: "Still here." },
    ]);
    const first = await hostIn(dir, kind, srv);
    expect((await first.host.run("Echo one")).ok).toBe(true);
    const id = first.host.session.id;
    const file = sessionFile(dir, id);
    expect(first.host.session.transcriptPath).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(dir, ".agent", ".gitignore"), "utf8")).toMatch(/^sessions\/$/m);
    const recs = lines(file);
    expect(recs[0]).toMatchObject({ type: "meta", id, cwd: dir, model: `${kind}:test-model` });
    expect(recs.filter((r) => r.type === "message").map((r) => (r.message as { role: string }).role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(recs.filter((r) => r.type === "usage")).toHaveLength(2);
    const saved = structuredClone(first.host.session.messages);
    await first.host.close();

    // A new process (here: a new host) continues the newest session of the project.
    const second = await hostIn(dir, kind, srv);
    const r = await second.host.session.resume("last");
    expect(r).toMatchObject({ id, from: id, forked: false, messages: 4 });
    expect(second.host.session.id).toBe(id);
    expect(second.host.session.messages).toEqual(saved);
    expect(second.host.session.usage).toEqual({ inputTokens: 110, outputTokens: 9 });
    const run = await second.host.run("Are you there?");
    expect(run).toMatchObject({ ok: true, sessionId: id, text: "Still here." });
    expect(second.events.find((e) => e.type === "session_start")).toMatchObject({ sessionId: id });
    // The provider got the old call and its result with matching ids (the fake refuses anything else).
    expect(toolResults(kind, srv.requests[2])).toEqual([{ id: "call_s1", content: "echo: one", isError: false }]);
    // Same file, appended to: a resume record, then the new turn.
    const after = lines(file);
    expect(after.slice(0, recs.length)).toEqual(recs);
    expect(after[recs.length]).toMatchObject({ type: "resume" });
    expect(listSessions(dir)).toHaveLength(1);
  });

  test("resume by id prefix, fork into a new id (the original untouched), list with turns and last prompt", async () => {
    const dir = await project();
    const srv = await fake(kind, [{ text: "A1" }, { text: "B1" }, { text: "A2 forked" }]);
    const a = await hostIn(dir, kind, srv);
    await a.host.run("first prompt of A");
    const idA = a.host.session.id;
    await a.host.close();
    const b = await hostIn(dir, kind, srv);
    await b.host.run("prompt of B");
    const idB = b.host.session.id;
    await b.host.close();

    const list = listSessions(dir);
    expect(list.map((s) => s.id).sort()).toEqual([idA, idB].sort());
    expect(list.find((s) => s.id === idA)).toMatchObject({ turns: 1, lastPrompt: "first prompt of A", model: `${kind}:test-model` });
    expect(findSession(dir, idA.slice(0, 6)).id).toBe(idA);
    expect(() => findSession(dir, "zzzz")).toThrow(/No session "zzzz"/);

    const before = readFileSync(sessionFile(dir, idA), "utf8");
    const c = await hostIn(dir, kind, srv);
    const r = await c.host.session.resume(idA.slice(0, 8), { fork: true });
    expect(r).toMatchObject({ from: idA, forked: true, messages: 2 });
    expect(r.id).not.toBe(idA);
    expect(c.host.session.id).toBe(r.id);
    await c.host.run("go on in the fork");
    expect(readFileSync(sessionFile(dir, idA), "utf8")).toBe(before);
    const forked = lines(sessionFile(dir, r.id));
    expect(forked[0]).toMatchObject({ type: "meta", id: r.id, forkedFrom: idA });
    const loaded = readSession(sessionFile(dir, r.id));
    expect(loaded.messages.map((m) => m.content)).toEqual(["first prompt of A", "A1", "go on in the fork", "A2 forked"]);
  });

  test("/clear starts a new session: a new id and file, the cleared conversation still resumable", async () => {
    const dir = await project();
    const srv = await fake(kind, [{ text: "before" }, { text: "after" }]);
    const { host } = await hostIn(dir, kind, srv);
    await host.run("the first conversation");
    const old = host.session.id;
    const oldFile = readFileSync(sessionFile(dir, old), "utf8");
    expect((await host.commands.run("/clear")).output).toMatch(/cleared/);
    expect(host.session.id).not.toBe(old);
    expect(existsSync(sessionFile(dir, host.session.id))).toBe(false); // no file until something is said
    await host.run("the second conversation");
    expect(readSession(sessionFile(dir, host.session.id)).messages.map((m) => m.content)).toEqual(["the second conversation", "after"]);
    // The old transcript is as it was: nothing appended, no clear record.
    expect(readFileSync(sessionFile(dir, old), "utf8")).toBe(oldFile);
    expect(readSession(sessionFile(dir, old)).messages.map((m) => m.content)).toEqual(["the first conversation", "before"]);
    expect(listSessions(dir).map((x) => x.id).sort()).toEqual([old, host.session.id].sort());
  });

  test("a truncated or corrupted tail resumes from the last complete turn, says so, and the file is repaired", async () => {
    const dir = await project();
    const srv = await fake(kind, [
      { text: "Checking.", toolCalls: [{ id: "call_t1", name: "echo", arguments: { text: "x" } }] },
      { text: "Done." },
      { text: "Resumed fine." },
    ]);
    const a = await hostIn(dir, kind, srv);
    await a.host.run("Echo x");
    const id = a.host.session.id;
    await a.host.close();
    const file = sessionFile(dir, id);
    const good = lines(file).length;
    // A turn whose results never made it, then half a line (a write cut by a crash).
    appendFileSync(file, `${JSON.stringify({ type: "message", time: "t", message: { role: "user", content: "next" } })}\n`);
    appendFileSync(file, `${JSON.stringify({ type: "message", time: "t", message: { role: "assistant", content: "", toolCalls: [{ id: "call_lost", name: "echo", input: {} }] } })}\n`);
    appendFileSync(file, '{"type":"message","time":"t","message":{"role":"tool","toolCallId":"call_l');
    const loaded = readSession(file);
    expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(loaded.damaged).toContain(`truncated or corrupted at line ${good + 3}; resuming from the last complete turn (5 messages, 1 incomplete one dropped)`);

    const b = await hostIn(dir, kind, srv);
    const r = await b.host.session.resume(id);
    expect(r.damaged).toBe(loaded.damaged);
    expect((await b.host.run("carry on")).text).toBe("Resumed fine.");
    expect(existsSync(`${file}.damaged`)).toBe(true);
    // Repaired: the whole conversation reads back, the new turn included, with nothing damaged.
    const again = readSession(file);
    expect(again.damaged).toBeUndefined();
    expect(again.messages.map((m) => m.content).slice(-2)).toEqual(["carry on", "Resumed fine."]);
  });
});

describe("sessions, whatever the provider", () => {
  test("two projects keep their sessions apart", async () => {
    const [p1, p2] = [await project(), await project()];
    const srv = await fake("openai", [{ text: "in one" }, { text: "in two" }]);
    const one = await hostIn(p1, "openai", srv);
    await one.host.run("project one");
    const two = await hostIn(p2, "openai", srv);
    await two.host.run("project two");
    expect(listSessions(p1).map((s) => s.lastPrompt)).toEqual(["project one"]);
    expect(listSessions(p2).map((s) => s.lastPrompt)).toEqual(["project two"]);
    await expect(two.host.session.resume(one.host.session.id)).rejects.toThrow(/No session/);
  });

  test("/resume lists the project's sessions, numbered; /resume <n> continues one (sessionStart hears source resume)", async () => {
    const dir = await project();
    const srv = await fake("openai", [{ text: "old answer" }, { text: "new answer" }, { text: "back in the old one" }]);
    const old = await hostIn(dir, "openai", srv);
    await old.host.run("the old task");
    const oldId = old.host.session.id;
    await old.host.close();
    const sources: string[] = [];
    const host = await createHost({
      cwd: dir,
      userConfigDir: false,
      builtins: builtinPlugins.filter((b) => ["openai", "sessions", "commands"].includes(b.name)),
      plugins: [{ name: "listener", sessionStart: (s) => void sources.push(s.source) }],
      config: { model: "openai:test-model", providers: { openai: { baseURL: srv.baseURL, apiKey: "k" } } },
    });
    cleanups.push(() => host.close());
    await host.run("the new task");
    const listed = await host.commands.run("/resume", { asUser: true });
    const rows = listed.output!.split("\n").filter((l) => /^ *\d+\. /.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^ 1\. \S{8} .* 1 turns {2}the new task \(this one\)$/);
    expect(rows[1]).toContain("the old task");
    const picked = await host.commands.run("/resume 2", { asUser: true });
    expect(picked.output).toBe(`Resumed session ${oldId} (2 messages). Last prompt: the old task`);
    expect(host.session.id).toBe(oldId);
    expect(host.sessionId).toBe(oldId);
    await host.run("and now?");
    expect(sources).toEqual(["startup", "resume"]);
    expect(userTextsOf(srv.requests[2].body)).toEqual(["the old task", "and now?"]);
    expect((await host.commands.run("/resume zzz", { asUser: true })).output).toMatch(/No session "zzz"/);
  });

  test("pruning: older than maxAgeDays, then beyond maxCount, at the start of a new session; never the current one", async () => {
    const dir = await project();
    const sdir = path.join(dir, ".agent", "sessions");
    mkdirSync(sdir, { recursive: true });
    const day = 86_400_000;
    const old = (name: string, daysAgo: number) => {
      const f = path.join(sdir, `${name}.jsonl`);
      writeFileSync(f, `${JSON.stringify({ type: "meta", id: name, started: "2026-01-01T00:00:00Z", cwd: dir, version: "x" })}\n`);
      const t = new Date(Date.now() - daysAgo * day);
      utimesSync(f, t, t);
    };
    old("ancient", 40);
    old("week", 7);
    old("day", 1);
    // Subagents' transcripts (a folder named after the session) go with it.
    mkdirSync(path.join(sdir, "ancient", "subagents"), { recursive: true });
    writeFileSync(path.join(sdir, "ancient", "subagents", "agent-explore-t1.jsonl"), "{}\n");
    mkdirSync(path.join(sdir, "week", "subagents"), { recursive: true });
    expect(pruneSessions(dir, { maxAgeDays: 30, maxCount: 0 }).sort()).toEqual(["ancient"]);
    expect(existsSync(path.join(sdir, "ancient"))).toBe(false);
    expect(existsSync(path.join(sdir, "week", "subagents"))).toBe(true);
    old("ancient", 40);
    const srv = await fake("openai", [{ text: "ok" }]);
    const h = await hostIn(dir, "openai", srv, { sessions: { maxAgeDays: 30, maxCount: 2 } });
    await h.host.run("new one");
    // 40 days: too old; then the newest one besides the new session is kept (2 in all).
    expect(listSessions(dir).map((s) => s.id).sort()).toEqual(["day", h.host.session.id].sort());
  });

  test("sessions.enabled: false writes nothing; a bad sessions value is a config error naming the key", async () => {
    const dir = await project();
    const srv = await fake("openai", [{ text: "ok" }]);
    const h = await hostIn(dir, "openai", srv, { sessions: { enabled: false } });
    await h.host.run("hi");
    expect(h.host.session.transcriptPath).toBeUndefined();
    expect(existsSync(path.join(dir, ".agent", "sessions"))).toBe(false);
    writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ sessions: { maxAgeDays: -1 } }));
    await expect(createHost({ cwd: dir, userConfigDir: false })).rejects.toThrow(/sessions\.maxAgeDays/);
  });
});
