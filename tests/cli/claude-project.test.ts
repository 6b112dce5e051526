/**
 * A project set up for Claude Code only (tests/fixtures/claude-project: .claude/settings.json with rules,
 * env and hooks, a PreToolUse hook that blocks rm) works unchanged through the built CLI: `agent run`
 * against the fake model server, `agent config`, `agent doctor`. Needs `npm run build` first.
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { REPO, startFake, tempDir, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, runCli } from "./run-helpers.js";

beforeAll(assertBuilt);

const FIXTURE = path.join(REPO, "tests", "fixtures", "claude-project");
let srv: FakeServer | undefined;
let remove: (() => Promise<void>) | undefined;
afterEach(async () => {
  await srv?.close();
  await remove?.();
  srv = remove = undefined;
});

/** A copy of the fixture (the tests write into it), and the environment that points the model at the fake server. */
async function project(script: Turn[] = []) {
  const tmp = await tempDir("agent-claude-project-");
  remove = tmp.remove;
  const dir = path.join(tmp.dir, "app");
  cpSync(FIXTURE, dir, { recursive: true });
  srv = await startFake("openai", script);
  const env = cleanEnv({ AGENT_MODEL: "openai:gpt-fake", OPENAI_BASE_URL: srv.baseURL, OPENAI_API_KEY: "test-key" }, dir);
  return { dir, env };
}

/** The text of the last tool result the model was sent. */
const lastToolResult = (body: { messages: { role: string; content: string }[] }) => body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";

test("agent run: the rm-blocking hook, the rules (allow, deny) and env of .claude/settings.json work unchanged", async () => {
  const seen: string[] = [];
  const { dir, env } = await project([
    { text: "Cleaning up.", toolCalls: [{ id: "call_rm", name: "run_command", arguments: { command: "rm -rf src" } }] },
    (body) => (seen.push(lastToolResult(body)), { toolCalls: [{ id: "call_echo", name: "run_command", arguments: { command: "echo $GREETING" } }] }),
    (body) => (seen.push(lastToolResult(body)), { toolCalls: [{ id: "call_env", name: "read_file", arguments: { path: ".env" } }] }),
    (body) => (seen.push(lastToolResult(body)), { toolCalls: [{ id: "call_src", name: "read_file", arguments: { path: "src/main.py" } }] }),
    (body) => (seen.push(lastToolResult(body)), { text: "All done." }),
  ]);
  const { code, stdout, stderr } = await runCli(["run", "-p", "tidy the project", "--output-format", "json"], { cwd: dir, env });
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(code).toBe(0);
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({ ok: true, result: "All done.", turns: 5 });
  expect(result.toolCalls.map((c: { outcome: string }) => c.outcome)).toEqual(["denied", "ok", "denied", "ok"]);
  // The hook blocked rm; src is still there.
  // (The OpenAI wire format marks a failed result with "Error: ".)
  expect(seen[0]).toBe("Error: Denied by a plugin: PreToolUse hook: Blocked by .claude/hooks/block-rm.sh: rm is not allowed in this project");
  expect(existsSync(path.join(dir, "src/main.py"))).toBe(true);
  // Bash(echo:*) allowed the echo (no terminal, no question), with the settings' env.
  expect(seen[1]).toContain("hello from settings.json");
  // Read(./.env) kept the secret out; Read(./src/**) allowed the source.
  expect(seen[2]).toContain('deny rule "Read(/.env)"');
  expect(seen[2]).not.toContain("not-for-the-model");
  expect(seen[3]).toContain("ANSWER = 42");
  // SessionStart's stdout was context for the model; PostToolUse logged the Bash call that ran.
  expect(srv!.requests[0].body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("This project is the fixture. Tests run with: npm test") });
  const logged = readFileSync(path.join(dir, ".claude/tool-log.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(logged.map((l) => [l.hook_event_name, l.tool_name, l.tool_input.command])).toEqual([["PostToolUse", "Bash", "echo $GREETING"]]);
  // Every hook run is audited.
  const audit = readFileSync(path.join(dir, ".agent/audit.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(audit.filter((r) => r.kind === "hook").map((r) => r.name)).toEqual(["SessionStart", "PreToolUse", "PreToolUse", "PostToolUse"]);
});

test("agent config shows which file each part came from; agent doctor warns about what does not apply here", async () => {
  const { dir, env } = await project();
  const config = await runCli(["config"], { cwd: dir, env });
  expect(config.code).toBe(0);
  expect(config.stdout).toMatch(/permissions\.deny\s+Read\(\/\.env\)\s+\.claude\/settings\.json\s+written Read\(\.\/\.env\)/);
  expect(config.stdout).toMatch(/permissions\.allow\s+Bash\(cat:\*\)\s+\.claude\/settings\.local\.json/);
  expect(config.stdout).toMatch(/model\s+\.claude\/settings\.json\s+ignored: it means nothing to agent-host/);
  const json = JSON.parse((await runCli(["config", "--json"], { cwd: dir, env })).stdout);
  expect(json.origins).toContainEqual({ key: "env.GREETING", file: path.join(dir, ".claude/settings.json") });

  const doctor = await runCli(["doctor"], { cwd: dir, env });
  expect(doctor.code).toBe(0);
  expect(doctor.stdout).toContain(`warn permissions.deny[3] "WebFetch" (from ${path.join(dir, ".claude/settings.json")}) names no registered tool, so it denies nothing`);
  expect(doctor.stdout).toContain("warn hooks.TeammateIdle: never fires in agent-host (there are no agent teams); its hooks do not run");
  expect(doctor.stdout).toContain("(Claude Code's WebFetch has no equivalent in agent-host unless a plugin or MCP server adds a tool by that name)");
  // Warnings are doctor's: a plain command prints only the one line about rules that match nothing here.
  expect((await runCli(["tools"], { cwd: dir, env })).stderr).toBe(
    "agent: permission rules name Claude Code tools agent-host does not have (WebFetch): they match nothing here; `agent doctor` lists them\n",
  );
});

test("compat.claude: false in agent-host's own config turns all of it off", async () => {
  const { dir, env } = await project([{ toolCalls: [{ name: "run_command", arguments: { command: "echo $GREETING" } }] }, { text: "ok" }]);
  const { writeFileSync } = await import("node:fs");
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ compat: { claude: false } }));
  const { code, stdout } = await runCli(["run", "-p", "greet", "--output-format", "json"], { cwd: dir, env });
  expect(code).toBe(0);
  // No Bash(echo:*) rule any more: headless, the command needs approval and is denied.
  expect(JSON.parse(stdout).toolCalls).toEqual([expect.objectContaining({ name: "run_command", outcome: "denied" })]);
  expect(existsSync(path.join(dir, ".claude/tool-log.jsonl"))).toBe(false);
});

test("agent doctor names every Claude Code feature the project uses that agent-host does not support", async () => {
  const { dir, env } = await project();
  const { mkdirSync, writeFileSync } = await import("node:fs");
  mkdirSync(path.join(dir, ".claude/agents"), { recursive: true });
  writeFileSync(path.join(dir, ".claude/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews code\n---\nReview.\n");
  mkdirSync(path.join(dir, ".claude/output-styles"), { recursive: true });
  writeFileSync(path.join(dir, ".claude/output-styles/terse.md"), "---\nname: terse\n---\nBe terse.\n");
  const doctor = await runCli(["doctor", "--json"], { cwd: dir, env });
  const report = JSON.parse(doctor.stdout);
  const features = report.claudeUnsupported.map((f: { feature: string }) => f.feature);
  // .claude/agents/ is read (subagents); output styles are not.
  expect(features).toEqual(["setting model", "setting includeCoAuthoredBy", "output-styles/ (1 file)"]);
  const text = await runCli(["doctor"], { cwd: dir, env });
  expect(text.stdout).toContain(`warn Claude Code setting model (${path.join(dir, ".claude/settings.json")}): choose the model in agent-host's config (model) or with --model`);
  expect(text.stdout).toContain("warn Claude Code output-styles/ (1 file)");
});
