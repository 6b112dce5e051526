/**
 * The interactive session's input and output through a real pseudo-terminal (util-linux `script`):
 * bracketed paste as one prompt, answers drawn as Markdown (tables aligned with wide characters), keys
 * typed during a run (never echoed over the spinner, kept for the next prompt), `!command` through the
 * gate into the conversation, `@path` attachments with Tab completion, and "always for this project"
 * saved and read back by the next run. Needs `npm run build` first.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import stringWidth from "string-width";
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, makeProject, runCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
let pty: PtySession | undefined;
afterEach(async () => {
  pty?.kill();
  await pty?.exited;
  await srv?.close();
  await project?.remove();
  srv = project = pty = undefined;
});

async function start(script: Turn[], config: Record<string, unknown> = {}, files: Record<string, string> = {}): Promise<PtySession> {
  srv = await startFake("openai", script);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, ...config });
  for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(project.dir, rel), text);
  pty = new PtySession(project.dir, cleanEnv({}, project.dir));
  await pty.waitFor("Type a task.");
  await pty.prompt();
  return pty;
}
const lastUser = (i: number) => srv!.requests[i].body.messages.at(-1).content as string;

test("a multi-line paste is one prompt, shown as a placeholder until sent", async () => {
  const s = await start(["Got all three lines."]);
  s.type("Look: \x1b[200~line one\rline two\rline three\x1b[201~");
  await s.waitFor("[Pasted text #1 +2 lines]");
  s.type(" thanks\r");
  await s.waitFor("Got all three lines.");
  await s.prompt();
  expect(srv!.requests).toHaveLength(1);
  expect(lastUser(0)).toBe("Look: line one\nline two\nline three thanks");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("answers are drawn as Markdown: headings, emphasis, lists, code, and a table aligned with CJK and emoji", async () => {
  const answer = "# Plan\n\nDo **this** and `that`.\n\n- first\n- second\n\n```sh\nnpm test\n```\n\n| name | 名前 |\n|---|---|\n| 🎉 party | 日本語テキスト |\n| plain | x |\n";
  const s = await start([answer]);
  s.type("plan it\r");
  await s.waitFor("└");
  await s.prompt();
  const screen = s.screen.slice(s.screen.indexOf("plan it"));
  expect(screen).toContain("# Plan"); // no colours here: the heading keeps its #
  expect(screen).toContain("Do this and `that`.");
  expect(screen).toContain("• first\n• second");
  expect(screen).toContain("  npm test");
  expect(screen).not.toContain("**this**");
  expect(screen).not.toContain("|---|");
  const rows = screen.split("\n").filter((l) => /^[┌├└│]/.test(l));
  expect(rows).toHaveLength(6);
  // Every row of the table is as wide on screen as the others: wide characters counted as two.
  expect(new Set(rows.map((r) => stringWidth(r))).size).toBe(1);
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("keys typed during a run are not echoed over the spinner and wait in the next prompt", async () => {
  const s = await start([{ toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] }, "Waited.", "Second answer."]);
  s.type("wait please\r");
  await s.waitFor("wait_for_go");
  const before = s.output.length;
  s.type("next question");
  await new Promise((r) => setTimeout(r, 400));
  writeFileSync(path.join(project!.dir, "go"), "");
  await s.waitFor("Waited.");
  await s.waitFor("> next question");
  // While it ran, nothing of what was typed reached the screen.
  const during = s.output.slice(before, s.output.indexOf("Waited.", before));
  expect(during).not.toContain("next question");
  s.type("\r");
  await s.waitFor("Second answer.");
  expect(lastUser(2)).toBe("next question");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("!command runs through the gate without a question (you typed it; audited) and its output reaches the model with the next prompt", async () => {
  const s = await start(["You ran echo."]);
  s.type("!echo hello-from-shell\r");
  await s.waitFor("hello-from-shell");
  await s.waitFor("(added to the conversation");
  await s.prompt();
  expect(srv!.requests).toHaveLength(0);
  s.type("what did it print?\r");
  await s.waitFor("You ran echo.");
  expect(lastUser(0)).toMatch(/^I ran this shell command myself \(with !\):\n\$ echo hello-from-shell\n[\s\S]*hello-from-shell/);
  expect(lastUser(0).endsWith("what did it print?")).toBe(true);
  const audit = readFileSync(path.join(project!.dir, ".agent/audit.jsonl"), "utf8");
  expect(audit).toMatch(/"kind":"call".*"name":"run_command".*"by":"user:once".*"outcome":"ok"/);
  expect(s.text).not.toContain("? Allow run_command");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("@path attaches a file (Tab completes it); a path outside the workspace is refused", async () => {
  const s = await start(["Summarised."], {}, { "notes-2026.md": "alpha\nbeta\n" });
  writeFileSync(path.join(project!.dir, "..", "elsewhere.txt"), "not yours\n");
  s.type("summarise @notes-2\t");
  await s.waitFor("@notes-2026.md");
  s.type(" and @../elsewhere.txt\r");
  await s.waitFor("◆ attached notes-2026.md (2 lines)");
  await s.waitFor("@../elsewhere.txt is outside the workspace; not attached");
  await s.waitFor("Summarised.");
  const sent = lastUser(0);
  expect(sent.startsWith("summarise @notes-2026.md and @../elsewhere.txt")).toBe(true);
  expect(sent).toContain('<attached file="notes-2026.md">');
  expect(sent).toMatch(/1.alpha/);
  expect(sent).not.toContain("not yours");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test('"always for this project" writes .agent/settings.local.json; agent config shows it and the next run is allowed', async () => {
  const s = await start([{ toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] }, "Written.", { toolCalls: [{ id: "m2", name: "write_marker", arguments: { name: "marker.txt" } }] }, "Again."]);
  s.type("write it\r");
  await s.waitFor("p  yes, always for this project: write_marker(marker.txt)");
  s.type("p\r");
  await s.waitFor("Written.");
  await s.prompt();
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
  const file = path.join(project!.dir, ".agent", "settings.local.json");
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ permissions: { allow: ["write_marker(marker.txt)"] } });
  const env = cleanEnv({}, project!.dir);
  const config = await runCli(["config"], { cwd: project!.dir, env });
  expect(config.stdout).toContain(file);
  expect(config.stdout).toMatch(/permissions\.allow\s+write_marker\(marker\.txt\)\s+\.agent\/settings\.local\.json/);
  // Headless, no terminal to ask: the saved rule allows it.
  const again = await runCli(["-p", "again"], { cwd: project!.dir, env });
  expect(again.stdout).toBe("Again.\n");
  expect(again.stderr).toContain("✓ write_marker");
});

test('agent "<first prompt>" --model <alias> starts a session with that prompt and model', async () => {
  srv = await startFake("openai", ["First answer."]);
  project = await makeProject({ modelAliases: { fake: "openai:gpt-fake" }, providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["explain this project", "--model", "fake"]));
  await s.waitFor("fake (openai:gpt-fake)");
  await s.waitFor("First answer.");
  await s.prompt();
  expect(lastUser(0)).toBe("explain this project");
  expect(srv.requests[0].body.model).toBe("gpt-fake");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("agent run in a terminal: keys typed while it works are not echoed over the spinner", async () => {
  srv = await startFake("openai", [{ toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] }, "Done."]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["-p", "wait for it"]));
  await s.waitFor("wait_for_go");
  s.type("zqzqzq");
  await new Promise((r) => setTimeout(r, 400));
  writeFileSync(path.join(project.dir, "go"), "");
  await s.waitFor("Done.");
  expect(await s.exited).toBe(0);
  expect(s.output).not.toContain("zqzqzq");
});

test("agent run in a terminal: Ctrl-C (a key while the keys are held) still cancels the run", async () => {
  srv = await startFake("openai", [{ text: ["Working on it"], stallAfter: 1 }]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["-p", "talk"]));
  await s.waitFor("Thinking");
  await new Promise((r) => setTimeout(r, 200));
  s.type("\x03");
  await s.waitFor("cancelled");
  expect(await s.exited).toBe(130);
});
