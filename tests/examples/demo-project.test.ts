/** The README's main-job command (run with AGENT_TRUST=1, as the README has it): the demo project's MCP server tool, through the gate, from the built CLI. */
import { afterAll, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";

afterAll(cleanupTemp);

test("agent --cwd examples/demo-project call mcp__demo__add adds through the demo server", async () => {
  const r = await runCli(["--cwd", "examples/demo-project", "call", "mcp__demo__add", '{"a":2,"b":3}', "--json"], {
    cwd: REPO_ROOT,
    configHome: tempDir(),
  });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, output: "5", structured: { sum: 5 } });
});

test("without AGENT_TRUST (a folder nobody trusted yet) the demo server does not start, and the CLI says why", async () => {
  const r = await runCli(["--cwd", "examples/demo-project", "call", "mcp__demo__add", '{"a":2,"b":3}'], {
    cwd: REPO_ROOT,
    configHome: tempDir(),
    env: { AGENT_TRUST: undefined },
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("this folder is not trusted");
  expect(r.stderr).toContain("MCP server demo");
  expect(r.stderr).toContain("agent trust");
});
