/**
 * Issue 26's terminal items, in a real pseudo-terminal: what was just allowed shows in /permissions,
 * apart from the saved rules, and /permissions revoke N takes it back. Needs `npm run build` first.
 */
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, makeProject, runCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
let pty: PtySession | undefined;
afterEach(async () => {
  if (process.env.PTY_DEBUG) console.log(pty?.text.slice(-2500));
  pty?.kill();
  await pty?.exited;
  await srv?.close();
  await project?.remove();
  srv = project = pty = undefined;
});

async function start(script: Turn[], config: Record<string, unknown> = {}, args: string[] = []): Promise<PtySession> {
  srv = await startFake("openai", script);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, ...config });
  pty = new PtySession(project.dir, cleanEnv({}, project.dir), args);
  await pty.waitFor("Type a task.");
  await pty.prompt();
  return pty;
}

const writeMarker = (id: string) => ({ toolCalls: [{ id, name: "write_marker", arguments: { name: "marker.txt" } }] });

test("/permissions lists an 'always this session' answer apart from the saved rules; revoke N makes the call ask again", async () => {
  const s = await start([writeMarker("m1"), "Written.", writeMarker("m2"), "Written again."], { permissions: { deny: ["run_command(rm:*)"] } });
  s.type("Write the marker\r");
  await s.waitFor("? Allow write_marker(marker.txt)");
  s.type("a");
  await s.waitFor("Written.");
  await s.prompt();

  s.type("/permissions\r");
  await s.waitFor("Granted this session (/permissions revoke N takes one back):");
  await s.waitFor("1. write_marker(marker.txt)  (you, always this session)");
  await s.waitFor("Saved rules");
  await s.waitFor("deny  run_command(rm:*)");
  await s.prompt();

  s.type("/permissions revoke 1\r");
  await s.waitFor("Revoked: write_marker(marker.txt). Calls it allowed will ask again.");
  await s.prompt();
  s.type("/permissions revoke 1\r");
  await s.waitFor("There is no grant 1: this session has none.");
  await s.prompt();

  s.type("Write it again\r");
  await s.waitFor("? Allow write_marker(marker.txt)");
  s.type("y");
  await s.waitFor("Written again.");
  await s.prompt();
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("Esc interrupts a streamed answer as Ctrl-C does; the session goes on", async () => {
  const s = await start([{ text: ["Starting a long answer", " that never ends"], stallAfter: 2 }, "Back again."]);
  s.type("Talk for a long time\r");
  await s.waitFor("Starting a long answer");
  s.type("\x1b");
  await s.waitFor("── cancelled");
  await s.prompt();
  s.type("Are you there?\r");
  await s.waitFor("Back again.");
  await s.prompt();
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("a permission answer is one key: no Enter is needed", async () => {
  const s = await start([writeMarker("m1"), "Written."]);
  s.type("Write the marker\r");
  await s.waitFor("? Allow write_marker(marker.txt)");
  s.type("y");
  await s.waitFor("✓ write_marker marker.txt");
  await s.waitFor("Written.");
  await s.prompt();
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("TERM=dumb: agent -p in a terminal writes plain lines, no cursor controls", async () => {
  srv = await startFake("openai", [{ toolCalls: [{ id: "e1", name: "echo", arguments: { text: "hi" } }] }, "# Done\n\nThe echo said hi."]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["-p", "Echo hi"], { term: "dumb" }));
  expect(await s.exited).toBe(0);
  expect(s.text).toContain("The echo said hi.");
  // eslint-disable-next-line no-control-regex
  expect(s.output).not.toMatch(/\x1b\[(K|0J|\d*A|\?2004)/);
});

test("--resume with no id: printed headless (exit 0; agent run says to give one, exit 2), listed to pick in a terminal; -c redraws the last turns", async () => {
  srv = await startFake("openai", ["Hello from the first session!", "Still here."]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const env = cleanEnv({}, project.dir);
  const first = await runCli(["-p", "Say hello", "--output-format", "json"], { cwd: project.dir, env });
  expect(first.code, first.stderr).toBe(0);
  const id = JSON.parse(first.stdout).sessionId as string;

  const listed = await runCli(["--resume"], { cwd: project.dir, env });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toMatch(new RegExp(`^${id} .*Say hello$`, "m"));
  const headless = await runCli(["run", "--resume", "-p", "again"], { cwd: project.dir, env });
  expect(headless.code).toBe(2);
  expect(headless.stderr).toContain(id);
  expect(headless.stderr).toContain("--resume needs a session id here");

  const pick = (pty = new PtySession(project.dir, env, ["--resume"]));
  await pick.waitFor(`1. ${id.slice(0, 8)}`);
  await pick.waitFor("Continue one with /resume <number>");
  pick.type("/exit\r");
  expect(await pick.exited).toBe(0);

  const cont = (pty = new PtySession(project.dir, env, ["-c"]));
  await cont.waitFor(`Resumed session ${id}`);
  await cont.waitFor("> Say hello");
  await cont.waitFor("Hello from the first session!");
  await cont.prompt();
  cont.type("/exit\r");
  expect(await cont.exited).toBe(0);
});

test("the banner is wrapped at words to the terminal's width, never cut mid-word", async () => {
  const s = await start(["Hi."]);
  const lines = s.text.split("\n");
  const at = lines.findIndex((l) => l.startsWith("Type a task."));
  // The pty is 120 columns: the tip takes two lines, each within the width, split between words.
  expect(lines[at].length).toBeLessThan(120);
  expect(lines[at + 1]).toMatch(/^\S.*Ctrl-D quits\.$/);
  expect(`${lines[at]} ${lines[at + 1]}`).toContain("Type a task. /help for commands, !cmd runs a shell command, @path attaches a file (Tab completes), \\ + Enter for a new line, Ctrl-C or Esc cancels, Ctrl-D quits.");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});
