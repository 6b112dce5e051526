/**
 * Sessions from the command line (issue 11), with the built CLI against the fake model server:
 * `agent run -c`, `--resume <id>`, `--fork-session`, `agent -p … -c`, `agent sessions [--json]`, the
 * session id in stream-json and json output, and a run killed with SIGKILL mid-turn resuming from its
 * last finished turn. Needs `npm run build` first.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, toolResults, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, jsonLines, makeProject, runCli, spawnCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
let pty: PtySession | undefined;
afterEach(async () => {
  pty?.kill();
  await pty?.exited;
  pty = undefined;
  await srv?.close();
  await project?.remove();
  srv = project = undefined;
});

async function setup(script: Turn[]) {
  srv = await startFake("openai", script);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  return { srv, dir: project.dir, env: cleanEnv({}, project.dir) };
}

const userTexts = (body: { messages: { role: string; content: unknown }[] }) => body.messages.filter((m) => m.role === "user").map((m) => m.content);

test("-c continues the newest session, --resume <prefix> a given one, --fork-session a copy; ids in json and stream-json; agent sessions lists them", async () => {
  const { srv, dir, env } = await setup([
    { text: "Checking.", toolCalls: [{ id: "call_c1", name: "echo", arguments: { text: "hi" } }] },
    { text: "First done." },
    { text: "Second done." },
    { text: "Third done." },
    { text: "Fork done." },
  ]);
  const first = await runCli(["run", "-p", "first task", "--output-format", "json"], { cwd: dir, env });
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout).sessionId as string;

  const second = await runCli(["run", "-c", "-p", "second task", "--output-format", "stream-json"], { cwd: dir, env });
  expect(second.code).toBe(0);
  const events = jsonLines(second.stdout);
  expect(events.find((e) => e.type === "session_start")).toMatchObject({ sessionId: id });
  expect(events.find((e) => e.type === "notice")).toMatchObject({ source: "sessions", message: `Resumed session ${id} (4 messages).` });
  expect(userTexts(srv.requests[2].body)).toEqual(["first task", "second task"]);
  expect(toolResults("openai", srv.requests[2])).toEqual([{ id: "call_c1", content: "echo: hi", isError: false }]);

  // Top-level `agent -p … -c`, and --resume with the start of the id.
  const third = await runCli(["-p", "third task", "--resume", id.slice(0, 8), "--output-format", "json"], { cwd: dir, env });
  expect(JSON.parse(third.stdout)).toMatchObject({ ok: true, sessionId: id, result: "Third done." });
  expect(userTexts(srv.requests[3].body)).toEqual(["first task", "second task", "third task"]);

  const fork = await runCli(["run", "-c", "--fork-session", "-p", "fork task", "--output-format", "json"], { cwd: dir, env });
  const forkId = JSON.parse(fork.stdout).sessionId as string;
  expect(forkId).not.toBe(id);
  expect(userTexts(srv.requests[4].body)).toEqual(["first task", "second task", "third task", "fork task"]);

  const list = await runCli(["sessions", "--json"], { cwd: dir, env });
  const sessions = JSON.parse(list.stdout) as { id: string; turns: number; lastPrompt: string; model: string }[];
  expect(sessions.map((s) => s.id).sort()).toEqual([id, forkId].sort());
  expect(sessions.find((s) => s.id === id)).toMatchObject({ turns: 4, lastPrompt: "third task", model: "openai:gpt-fake" });
  const text = await runCli(["sessions"], { cwd: dir, env });
  expect(text.stdout).toMatch(new RegExp(`^${id} .* 4 +openai:gpt-fake +third task$`, "m"));

  const bad = await runCli(["run", "--fork-session", "-p", "x"], { cwd: dir, env });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--fork-session needs -c/--continue or --resume <id>");
  const none = await runCli(["run", "--resume", "nope", "-p", "x"], { cwd: dir, env });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('No session "nope" in this project');
});

test("kill -9 mid-run loses no finished turn: the next -c resumes from the last complete one", async () => {
  let reachedSecond: () => void = () => {};
  const second = new Promise<void>((r) => (reachedSecond = r));
  const { srv, dir, env } = await setup([
    { text: "Step one.", toolCalls: [{ id: "call_k1", name: "echo", arguments: { text: "kept" } }] },
    (() => {
      reachedSecond();
      return { text: "Waiting.", toolCalls: [{ id: "call_k2", name: "wait_for_go", arguments: {} }] };
    }) as unknown as Turn,
    { text: "Resumed answer." },
  ]);
  const run = spawnCli(["run", "-p", "two steps", "--output-format", "stream-json"], { cwd: dir, env });
  const start = JSON.parse(await run.waitForLine((l) => l.includes('"session_start"'))) as { sessionId: string };
  await second;
  await run.waitForLine((l) => l.includes('"tool_start"') && l.includes("wait_for_go"));
  run.child.kill("SIGKILL");
  await run.done;

  const file = path.join(dir, ".agent", "sessions", `${start.sessionId}.jsonl`);
  expect(readFileSync(file, "utf8")).toContain("call_k1");
  // As if the kill had cut a write in half.
  appendFileSync(file, '{"type":"message","time":"x","message":{"role":"assis');
  const next = await runCli(["run", "-c", "-p", "go on", "--output-format", "json"], { cwd: dir, env });
  expect(next.code).toBe(0);
  expect(next.stderr).toMatch(/agent: Session \S+: the transcript is truncated or corrupted at line \d+; resuming from the last complete turn \(3 messages\)\./);
  expect(JSON.parse(next.stdout)).toMatchObject({ sessionId: start.sessionId, result: "Resumed answer." });
  const body = srv.requests[2].body;
  expect(userTexts(body)).toEqual(["two steps", "go on"]);
  expect(toolResults("openai", srv.requests[2])).toEqual([{ id: "call_k1", content: "echo: kept", isError: false }]);
  expect(JSON.stringify(body)).not.toContain("call_k2");
});

test("interactive: agent -c resumes the newest session; /compact and /resume work in the session", async () => {
  const { srv, dir, env } = await setup([{ text: "Saved answer." }, { text: "Other answer." }, { text: "Summary of it all." }, { text: "Back in the first." }]);
  const first = JSON.parse((await runCli(["run", "-p", "first session task", "--output-format", "json"], { cwd: dir, env })).stdout) as { sessionId: string };
  await runCli(["run", "-p", "second session task"], { cwd: dir, env });
  pty = new PtySession(dir, env, ["-c"]);
  await pty.waitFor("Type a task.");
  await pty.waitFor("Resumed session ");
  await pty.prompt();
  pty.type("/compact the task names\r");
  await pty.waitFor("Compacted: 1 of 2 messages summarised");
  await pty.prompt();
  expect(JSON.stringify(srv.requests[2].body)).toContain("second session task");
  expect(JSON.stringify(srv.requests[2].body)).toContain("Also keep, as the user asked: the task names");
  pty.type("/resume\r");
  await pty.waitFor("Continue one with /resume <number> or /resume <id>.");
  await pty.prompt();
  pty.type(`/resume ${first.sessionId.slice(0, 8)}\r`);
  await pty.waitFor(`Resumed session ${first.sessionId} (2 messages). Last prompt: first session task`);
  await pty.prompt();
  pty.type("and now\r");
  await pty.waitFor("Back in the first.");
  await pty.prompt();
  expect(userTexts(srv.requests[3].body)).toEqual(["first session task", "and now"]);
  pty.type("/exit\r");
  expect(await pty.exited).toBe(0);
});

test("agent doctor lists the instruction files loaded, with their sizes and imports", async () => {
  const { dir, env } = await setup([]);
  writeFileSync(path.join(dir, "AGENTS.md"), "Root rules. @docs/style.md @../outside.md");
  writeFileSync(path.join(dir, "CLAUDE.md"), "Claude rules.");
  mkdirSync(path.join(dir, "docs"));
  writeFileSync(path.join(dir, "docs", "style.md"), "Style.");
  const r = await runCli(["doctor", "--json"], { cwd: dir, env });
  const report = JSON.parse(r.stdout) as { instructions: { label: string; bytes: number; importedBy?: string }[]; warnings: string[] };
  expect(report.instructions.map(({ label, bytes, importedBy }) => ({ label, bytes, importedBy }))).toEqual([
    { label: "AGENTS.md", bytes: 41, importedBy: undefined },
    { label: path.join("docs", "style.md"), bytes: 6, importedBy: "AGENTS.md" },
    { label: "CLAUDE.md", bytes: 13, importedBy: undefined },
  ]);
  expect(report.warnings).toContain("instructions: @../outside.md (imported by AGENTS.md): outside the workspace, not read");
  const text = await runCli(["doctor"], { cwd: dir, env });
  expect(text.stdout).toContain(`instructions: AGENTS.md (41 bytes), ${path.join("docs", "style.md")} (6 bytes, imported by AGENTS.md), CLAUDE.md (13 bytes)`);
});
