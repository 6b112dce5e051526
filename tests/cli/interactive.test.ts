/**
 * The interactive session, driven through a real pseudo-terminal (util-linux `script`): a prompt,
 * multi-line input, a tool permission question answered inline, Ctrl-C cancelling a run, `/exit`.
 * Paste, Markdown, keys during a run, `!`, `@` and Tab are in interactive-input.test.ts. Needs `npm run build` first.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, makeProject, type Project } from "./run-helpers.js";

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

async function start(script: Turn[]): Promise<PtySession> {
  srv = await startFake("openai", script);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  pty = new PtySession(project.dir, cleanEnv({}, project.dir));
  await pty.waitFor("Type a task.");
  await pty.prompt();
  return pty;
}

test("a prompt, multi-line input, a permission question answered inline, /exit", async () => {
  const s = await start([
    "Hello! How can I help?",
    { text: "Writing the marker.", toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] },
    "Marker written.",
  ]);

  s.type("Say hello\r");
  await s.waitFor("Hello! How can I help?");
  await s.waitFor("── 1 turn");
  await s.prompt();

  // "\" + Enter continues the input on the next line.
  s.type("Please write\\\r");
  await s.waitFor("… ");
  s.type("a marker file\r");
  await s.waitFor("? Allow write_marker(marker.txt)");
  await s.waitFor("a  yes, always this session: write_marker(marker.txt)");
  s.type("y\r");
  await s.waitFor("✓ write_marker marker.txt");
  await s.waitFor("Marker written.");
  await s.prompt();
  expect(readFileSync(path.join(project!.dir, "marker.txt"), "utf8")).toBe("marked");
  expect(srv!.requests[1].body.messages.at(-1)).toEqual({ role: "user", content: "Please write\na marker file" });

  s.type("/exit\r");
  expect(await s.exited).toBe(0);
  // The history keeps what was typed (not the permission answer).
  const history = readFileSync(path.join(project!.dir, ".agent", "history"), "utf8");
  expect(history).toContain("Say hello");
  expect(history).not.toMatch(/^y$/m);
});

test("denying the permission question: the tool does not run and the model is told", async () => {
  const s = await start([{ toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] }, "Understood, not writing."]);
  s.type("Write a marker\r");
  await s.waitFor("? Allow write_marker(marker.txt)");
  s.type("n\r");
  await s.waitFor("✗ write_marker marker.txt denied");
  await s.waitFor("Understood, not writing.");
  await s.prompt();
  expect(existsSync(path.join(project!.dir, "marker.txt"))).toBe(false);
  const toolMsg = srv!.requests[1].body.messages.find((m: { role: string }) => m.role === "tool");
  expect(toolMsg.content).toContain("Permission denied by the user");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("keys typed ahead during a run cannot answer a permission question that comes later", async () => {
  const s = await start([
    { toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] },
    { toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] },
    "Done.",
  ]);
  s.type("Wait, then write a marker\r");
  await s.waitFor("wait_for_go");
  // While the tool waits, an eager "y" + Enter is typed (not echoed: the spinner line stays clean).
  s.type("y\r");
  await new Promise((r) => setTimeout(r, 400));
  writeFileSync(path.join(project!.dir, "go"), "");
  await s.waitFor("? Allow write_marker(marker.txt)");
  await s.waitFor("> ");
  s.type("n\r");
  await s.waitFor("✗ write_marker marker.txt denied");
  await s.waitFor("Done.");
  await s.prompt();
  expect(existsSync(path.join(project!.dir, "marker.txt"))).toBe(false);
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("agent run in a terminal: keys typed ahead do not answer its permission question either", async () => {
  srv = await startFake("openai", [
    { toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] },
    { toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] },
    "Done.",
  ]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["run", "-p", "Wait, then write a marker"]));
  await s.waitFor("wait_for_go");
  s.type("y\r");
  await new Promise((r) => setTimeout(r, 400));
  writeFileSync(path.join(project.dir, "go"), "");
  await s.waitFor("? Allow write_marker(marker.txt)");
  await s.waitFor("> ");
  s.type("n\r");
  await s.waitFor("Done.");
  expect(await s.exited).toBe(0);
  expect(s.text).toContain("✗ write_marker marker.txt denied");
  expect(existsSync(path.join(project.dir, "marker.txt"))).toBe(false);
});

test("Ctrl-C cancels the running request and the session goes on; slash commands work", async () => {
  const s = await start([{ text: ["Starting a long answer", " that never ends"], stallAfter: 2 }, "Back again."]);
  // The incomplete paragraph is shown as it streams (then drawn as Markdown).
  s.type("Talk for a long time\r");
  await s.waitFor("Starting a long answer");
  s.type("\x03");
  await s.waitFor("── cancelled");
  await s.prompt();

  s.type("/tools\r");
  await s.waitFor("write_marker");
  await s.prompt();
  s.type("Are you there?\r");
  await s.waitFor("Back again.");
  await s.prompt();
  // The cancelled partial answer stays in the conversation, so the follow-up makes sense.
  expect(srv!.requests[1].body.messages.slice(-2)).toEqual([
    { role: "assistant", content: "Starting a long answer" },
    { role: "user", content: "Are you there?" },
  ]);
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("built-in, Markdown and skill commands in the session: /permissions, /mode typed by the user, a .agent command, a /<skill>", async () => {
  srv = await startFake("openai", ["Reviewed x.ts.", "Used the skill."]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, permissions: { deny: ["run_command(rm:*)"] } });
  writeFileSync(path.join(project.dir, "x.ts"), "export const x = 1;\n");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(path.join(project.dir, ".agent/commands"), { recursive: true });
  writeFileSync(path.join(project.dir, ".agent/commands/review.md"), "---\ndescription: Review a file\n---\nReview $1 for bugs.\n");
  mkdirSync(path.join(project.dir, ".agent/skills/tidy-up"), { recursive: true });
  writeFileSync(path.join(project.dir, ".agent/skills/tidy-up/SKILL.md"), "---\nname: tidy-up\ndescription: Tidy a file.\n---\nRemove dead code, then format.\n");
  pty = new PtySession(project.dir, cleanEnv({}, project.dir));
  const s = pty;
  await s.waitFor("Type a task.");
  await s.prompt();

  s.type("/permissions\r");
  await s.waitFor("Mode: default (change it with /mode)");
  await s.waitFor("deny  run_command(rm:*)");
  await s.prompt();
  s.type("/mode plan\r");
  await s.waitFor("Permission mode: plan");
  await s.prompt();
  s.type("/review x.ts\r");
  await s.waitFor("Reviewed x.ts.");
  await s.prompt();
  expect(srv.requests[0].body.messages.at(-1)).toEqual({ role: "user", content: "Review x.ts for bugs." });
  s.type("/tidy-up x.ts\r");
  await s.waitFor("Used the skill.");
  await s.prompt();
  expect(JSON.stringify(srv.requests[1].body.messages.at(-1))).toContain("Remove dead code, then format.");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
  const audit = readFileSync(path.join(project.dir, ".agent/audit.jsonl"), "utf8");
  expect(audit).toMatch(/"kind":"mode".*"source":"user:\/mode \(plugin commands\)"/);
});
