/**
 * `agent run`, end to end: the built CLI, a project config, a local plugin, the real provider
 * plugins and the fake model servers. Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFake, type FakeServer, type FakeServerOptions, type Turn } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, CLI, jsonLines, makeProject, runCli, spawnCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
afterEach(async () => {
  await srv?.close();
  await project?.remove();
  srv = project = undefined;
});

/** A fake OpenAI server with `script`, and a project configured to use it. */
async function setup(script: Turn[], config: Record<string, unknown> = {}, serverOpts: FakeServerOptions = {}) {
  srv = await startFake("openai", script, serverOpts);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, ...config });
  return { srv, dir: project.dir, env: cleanEnv({}, project.dir) };
}

const ECHO_THEN_ANSWER: Turn[] = [
  { text: "Checking.", toolCalls: [{ id: "call_e1", name: "echo", arguments: { text: "hi" } }], usage: { input: 100, output: 10 } },
  { text: "The echo said hi.", usage: { input: 150, output: 8 } },
];

describe("output formats", () => {
  test("text: the final answer alone on stdout (not a terminal); tool lines and usage on stderr", async () => {
    const { dir, env } = await setup(ECHO_THEN_ANSWER);
    const { code, stdout, stderr } = await runCli(["run", "-p", "Echo hi"], { cwd: dir, env });
    expect(code).toBe(0);
    expect(stdout).toBe("The echo said hi.\n");
    expect(stderr).toContain("✓ echo hi");
    expect(stderr).toMatch(/── 2 turns · 250 in \/ 18 out tokens · /);
    expect(stderr).not.toContain("\x1b[");
  });

  test("json: one object at the end", async () => {
    const { dir, env } = await setup(ECHO_THEN_ANSWER);
    const { code, stdout } = await runCli(["run", "-p", "Echo hi", "--output-format", "json"], { cwd: dir, env });
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      type: "result",
      ok: true,
      reason: "end_turn",
      result: "The echo said hi.",
      model: "openai:gpt-fake",
      turns: 2,
      toolCalls: [{ name: "echo", outcome: "ok" }],
      usage: { inputTokens: 250, outputTokens: 18 },
    });
    expect(typeof result.sessionId).toBe("string");
  });

  test("stream-json: every event on its own line, in order", async () => {
    const { dir, env } = await setup(ECHO_THEN_ANSWER);
    const { code, stdout } = await runCli(["run", "-p", "Echo hi", "--output-format", "stream-json"], { cwd: dir, env });
    expect(code).toBe(0);
    const events = jsonLines(stdout);
    const it = events[Symbol.iterator]();
    const next = (type: string, fields: Record<string, unknown> = {}) => {
      const e = it.next().value;
      expect(e).toMatchObject({ type, ...fields });
      return e!;
    };
    const deltas = (expected: string) => {
      let text = "";
      let e = it.next().value!;
      while (e.type === "text_delta") {
        text += e.text as string;
        e = it.next().value!;
      }
      expect(text).toBe(expected);
      return e;
    };
    next("session_start", { model: "openai:gpt-fake", cwd: expect.any(String), tools: expect.any(Number) });
    next("user_message", { text: "Echo hi" });
    next("turn_start", { turn: 1, model: "openai:gpt-fake" });
    expect(deltas("Checking.")).toMatchObject({ type: "usage", inputTokens: 100, outputTokens: 10, totalInputTokens: 100 });
    next("assistant_message", { text: "Checking.", toolCalls: [{ id: "call_e1", name: "echo", input: { text: "hi" } }] });
    next("tool_start", { callId: "call_e1", name: "echo", input: { text: "hi" }, risk: "read", source: "cli-test-tools" });
    next("tool_end", { callId: "call_e1", name: "echo", outcome: "ok", truncated: false, outputBytes: 8, durationMs: expect.any(Number) });
    next("turn_start", { turn: 2 });
    expect(deltas("The echo said hi.")).toMatchObject({ type: "usage", inputTokens: 150, totalInputTokens: 250, totalOutputTokens: 18 });
    next("assistant_message", { text: "The echo said hi.", toolCalls: [] });
    next("session_end", { reason: "end_turn", turns: 2, usage: { inputTokens: 250, outputTokens: 18 }, result: "The echo said hi." });
    expect(it.next().done).toBe(true);
  });

  test("stream-json is written as it happens, not at the end", async () => {
    // The tool waits for a file the test creates only after it has read the tool_start line.
    const { dir, env } = await setup([{ toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] }, "Went."]);
    const run = spawnCli(["run", "-p", "Wait", "--output-format", "stream-json"], { cwd: dir, env });
    await run.waitForLine((l) => l.includes('"tool_start"'));
    await writeFile(path.join(dir, "go"), "");
    const { code, stdout } = await run.done;
    expect(code).toBe(0);
    expect(jsonLines(stdout).find((e) => e.type === "tool_end")).toMatchObject({ name: "wait_for_go", outcome: "ok" });
  });
});

describe("prompt and permissions", () => {
  test("the prompt can be piped on stdin", async () => {
    const { srv, dir, env } = await setup(["Piped prompt received."]);
    const { code, stdout } = await runCli(["run"], { cwd: dir, env, input: "Summarise the piped text\n" });
    expect(code).toBe(0);
    expect(stdout).toBe("Piped prompt received.\n");
    expect(srv.requests[0].body.messages.at(-1)).toEqual({ role: "user", content: "Summarise the piped text\n" });
  });

  test("-p with piped input: the input is added after the prompt", async () => {
    const { srv, dir, env } = await setup(["Reviewed."]);
    const code = await new Promise<number | null>((resolve) => {
      const sh = spawn("sh", ["-c", `printf 'diff --git a/x b/x' | "${process.execPath}" "${CLI}" run -p "Review this"`], { cwd: dir, env, stdio: "ignore" });
      sh.on("close", resolve);
    });
    expect(code).toBe(0);
    expect(srv.requests[0].body.messages.at(-1)).toEqual({ role: "user", content: "Review this\n\ndiff --git a/x b/x" });
  });

  test("a prompt that starts with a slash command is expanded first; any other slash is sent as written", async () => {
    const { srv, dir, env } = await setup(["Reviewed.", "Slow, yes."]);
    await writeFile(
      path.join(dir, "review.mjs"),
      'export default { name: "review-cmd", commands: [{ name: "review", description: "review a file", run: (args) => ({ prompt: "Please review " + args + " carefully." }) }] };\n',
    );
    const config = JSON.parse(await (await import("node:fs/promises")).readFile(path.join(dir, ".agentrc.json"), "utf8")) as { plugins: string[] };
    await writeFile(path.join(dir, ".agentrc.json"), JSON.stringify({ ...config, plugins: [...config.plugins, "./review.mjs"] }));
    expect((await runCli(["run", "-p", "/review src/x.ts"], { cwd: dir, env })).code).toBe(0);
    expect(srv.requests[0].body.messages.at(-1)).toEqual({ role: "user", content: "Please review src/x.ts carefully." });
    expect((await runCli(["run", "-p", "/usr/bin/node is slow"], { cwd: dir, env })).code).toBe(0);
    expect(srv.requests[1].body.messages.at(-1)).toEqual({ role: "user", content: "/usr/bin/node is slow" });
  });

  test("a slash command that only prints (no prompt) prints and asks no model", async () => {
    const { srv, dir, env } = await setup(["unused"]);
    const r = await runCli(["run", "-p", "/tools"], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("echo");
    expect(srv.requests).toHaveLength(0);
  });

  test("headless, a tool that needs approval is denied and the model is told which rule to add", async () => {
    const { srv, dir, env } = await setup([{ toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] }, "Could not write."]);
    const { code, stderr } = await runCli(["run", "-p", "Mark it"], { cwd: dir, env });
    expect(code).toBe(0);
    expect(stderr).toContain("✗ write_marker marker.txt denied");
    const toolMsg = srv.requests[1].body.messages.find((m: { role: string }) => m.role === "tool");
    expect(toolMsg.content).toContain('add "write_marker(marker.txt)" to permissions.allow');
  });

  test("--permission-mode acceptEdits lets the write tool run", async () => {
    const { dir, env } = await setup([{ toolCalls: [{ id: "m1", name: "write_marker", arguments: { name: "marker.txt" } }] }, "Written."]);
    const { code, stderr } = await runCli(["--permission-mode", "acceptEdits", "run", "-p", "Mark it"], { cwd: dir, env });
    expect(code).toBe(0);
    expect(stderr).toContain("✓ write_marker marker.txt");
  });
});

describe("stopping and exit codes", () => {
  test("--max-turns stops the run: exit 1 with the reason", async () => {
    const { srv, dir, env } = await setup([{ toolCalls: [{ name: "echo", arguments: { text: "again" } }] }], {}, { loop: true });
    const { code, stderr } = await runCli(["run", "-p", "Loop", "--max-turns", "2"], { cwd: dir, env });
    expect(code).toBe(1);
    expect(stderr).toContain("stopped: reached the turn limit of 2 (raise it with --max-turns)");
    expect(srv.requests).toHaveLength(2);
  });

  test("Ctrl-C cancels the running tool and the run: exit 130, session_end says aborted", async () => {
    const { dir, env } = await setup([{ toolCalls: [{ id: "w1", name: "wait_for_go", arguments: {} }] }, "never"]);
    const run = spawnCli(["run", "-p", "Wait", "--output-format", "stream-json"], { cwd: dir, env });
    await run.waitForLine((l) => l.includes('"tool_start"'));
    run.child.kill("SIGINT");
    const { code, stdout, stderr } = await run.done;
    expect(code).toBe(130);
    expect(stderr).toContain("Cancelling");
    const events = jsonLines(stdout);
    expect(events.find((e) => e.type === "tool_end")).toMatchObject({ name: "wait_for_go", outcome: "aborted" });
    expect(events.at(-1)).toMatchObject({ type: "session_end", reason: "aborted" });
  });

  test("a model failure ends the run: exit 1, a clear message, no stack trace", async () => {
    const { dir, env } = await setup([], {}, { requireKey: "another-key" });
    const { code, stderr } = await runCli(["run", "-p", "Hi"], { cwd: dir, env });
    expect(code).toBe(1);
    expect(stderr).toContain("refused the API key");
    expect(stderr).toContain("OPENAI_API_KEY");
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  test("no model configured: how to configure one, exit 2", async () => {
    project = await makeProject({});
    const { code, stderr } = await runCli(["run", "-p", "Hi"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
    expect(code).toBe(2);
    expect(stderr).toContain("No model configured");
    expect(stderr).toContain("AGENT_MODEL");
    expect(stderr).toContain("--model openai:");
  });

  test("no API key: names the env var, exit 2, nothing sent", async () => {
    project = await makeProject({});
    const { code, stderr } = await runCli(["run", "-p", "Hi", "--model", "anthropic:claude-sonnet-5-5"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
    expect(code).toBe(2);
    expect(stderr).toContain("No API key for anthropic: set ANTHROPIC_API_KEY");
  });

  test("AGENT_MODEL and --model choose the model; --model wins", async () => {
    const { srv, dir, env } = await setup(["one", "two"], { model: undefined });
    expect((await runCli(["run", "-p", "Hi"], { cwd: dir, env: { ...env, AGENT_MODEL: "openai:from-env" } })).code).toBe(0);
    expect((await runCli(["run", "-p", "Hi", "-m", "openai:from-flag"], { cwd: dir, env: { ...env, AGENT_MODEL: "openai:from-env" } })).code).toBe(0);
    expect(srv.requests.map((r) => r.body.model)).toEqual(["from-env", "from-flag"]);
  });

  test.each([
    [["run"], "no prompt"],
    [["run", "-p", "x", "--output-format", "xml"], "--output-format must be one of text, json, stream-json"],
    [["run", "-p", "x", "--max-turns", "0"], "--max-turns must be a positive whole number"],
    [["run", "-p", "x", "--model", "nope:x"], 'Unknown model provider "nope"'],
  ])("usage error %j: exit 2", async (args, message) => {
    project = await makeProject({});
    const { code, stderr } = await runCli(args, { cwd: project.dir, env: cleanEnv({}, project.dir), input: "" });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe("provider SDKs load lazily", () => {
  // A loader hook that fails any import of a provider SDK.
  const hook = `export async function resolve(s, c, next) {
    if (s === "openai" || s.startsWith("openai/") || s.startsWith("@anthropic-ai/sdk")) throw new Error("provider SDK imported: " + s);
    return next(s, c);
  }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  const nodeArgs = ["--import", `data:text/javascript,${encodeURIComponent(register)}`];

  test("agent --version and agent tools never import them", async () => {
    const { dir, env } = await setup([]);
    const version = await runCli(["--version"], { cwd: dir, env, nodeArgs });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const tools = await runCli(["tools"], { cwd: dir, env, nodeArgs });
    expect(tools.stderr).not.toContain("provider SDK imported");
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain("echo");
  });

  test("(control) a run does import the SDK, so the hook would catch an eager import", async () => {
    const { dir, env } = await setup(["hi"]);
    const { code, stderr } = await runCli(["run", "-p", "Hi"], { cwd: dir, env, nodeArgs });
    expect(code).toBe(1);
    expect(stderr).toContain("provider SDK imported: openai");
  });
});
