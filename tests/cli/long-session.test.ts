/**
 * Resume any size (issue 20): a 200 000-message transcript on disk resumes with `agent run -c` against the
 * fake model server — no spread of the message list into one call overflows the stack on the way.
 * Needs `npm run build` first.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { assertBuilt, cleanEnv, fakeOpenAiProject, runCli } from "./run-helpers.js";

beforeAll(assertBuilt);


const COUNT = 200_000;

/** A transcript as the recorder writes it: a meta line, then user/assistant pairs. */
function writeTranscript(dir: string, id: string): void {
  const time = new Date().toISOString();
  const lines = [JSON.stringify({ type: "meta", id, started: time, cwd: dir, model: "openai:gpt-fake", version: "0.0.0" })];
  for (let i = 0; i < COUNT; i += 2) {
    lines.push(JSON.stringify({ type: "message", time, message: { role: "user", content: `q${i}` } }));
    lines.push(JSON.stringify({ type: "message", time, message: { role: "assistant", content: `a${i}` } }));
  }
  const folder = path.join(dir, ".agent", "sessions");
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(folder, `${id}.jsonl`), lines.join("\n") + "\n", { mode: 0o600 });
}

test("a 200 000-message transcript resumes with -c and the run goes on", { timeout: 300_000 }, async () => {
  // The window is large enough that the whole conversation goes to the model as it is.
  const { srv, project } = await fakeOpenAiProject([{ text: "Still here." }], { model: "openai:gpt-fake", contextWindow: 100_000_000 });
  const id = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000";
  writeTranscript(project.dir, id);
  const r = await runCli(["run", "-c", "-p", "go on", "--output-format", "json"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  expect(r.stderr).not.toContain("Maximum call stack");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, sessionId: id, result: "Still here." });
  const sent = srv.requests[0].body as { messages: { role: string; content: unknown }[] };
  expect(sent.messages.filter((m) => m.role !== "system")).toHaveLength(COUNT + 1);
  expect(sent.messages.at(-1)).toMatchObject({ role: "user", content: "go on" });
});

test("a 200 000-message transcript past the context window resumes, compacts and goes on", { timeout: 300_000 }, async () => {
  const { srv, project } = await fakeOpenAiProject([{ text: "Summary of the long session." }, { text: "Back after compaction." }], { model: "openai:gpt-fake", contextWindow: 200_000 });
  const id = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0001";
  writeTranscript(project.dir, id);
  const r = await runCli(["run", "-c", "-p", "go on", "--output-format", "json"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  expect(r.stderr).not.toContain("Maximum call stack");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, sessionId: id, result: "Back after compaction." });
  // The run's request carries the summary and the recent turns, far fewer than 200 000 messages.
  const sent = JSON.stringify(srv.requests[1].body);
  expect(sent).toContain("Summary of the long session.");
  expect(sent).toContain('"go on"');
  expect((srv.requests[1].body as { messages: unknown[] }).messages.length).toBeLessThan(COUNT);
});
