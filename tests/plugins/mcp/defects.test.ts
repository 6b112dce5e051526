/**
 * MCP defects found from outside, each as a user meets it through the built CLI: a headless MCP prompt
 * is expanded, not sent as typed.
 */
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { REPO } from "../../core/loop-helpers.js";
import { assertBuilt, cleanEnv, fakeOpenAiProject, runCli } from "../../cli/run-helpers.js";

beforeAll(assertBuilt);

const DEMO = path.join(REPO, "dist", "demo-server.js");

test("agent run -p '/mcp__demo__greet Paris' expands the server's prompt before the model sees it", async () => {
  const { srv, project } = await fakeOpenAiProject([{ text: "Bonjour Paris!" }], {
    model: "openai:gpt-fake",
    mcpServers: { demo: { command: process.execPath, args: [DEMO] } },
  });
  const r = await runCli(["run", "-p", "/mcp__demo__greet Paris"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  expect(r.code, r.stderr).toBe(0);
  const sent = JSON.stringify(srv.requests[0]!.body);
  expect(sent).toContain("Please greet Paris warmly, in one sentence.");
  expect(sent).not.toContain("/mcp__demo__greet");
});

test("agent call shows a long tool's progress on stderr (and keeps --json output clean)", async () => {
  const { project } = await fakeOpenAiProject([], { mcpServers: { slow: { command: process.execPath, args: [path.join(REPO, "tests", "fixtures", "mcp", "slow-tool.mjs")] } } });
  const env = cleanEnv({}, project.dir);
  const r = await runCli(["--permission-mode", "bypass", "call", "mcp__slow__progress", '{"steps":3}'], { cwd: project.dir, env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe("done\n");
  expect(r.stderr).toContain("progress 1/3: step 1/3");
  expect(r.stderr).toContain("progress 3/3: step 3/3");
  const json = await runCli(["--permission-mode", "bypass", "call", "mcp__slow__progress", '{"steps":2}', "--json"], { cwd: project.dir, env });
  expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, output: "done" });
  expect(json.stderr).not.toContain("progress");
});
