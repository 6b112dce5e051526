/**
 * Hostile plugins through the built CLI: whatever a plugin leaves running or throws later, the
 * command prints its result, says what happened, and exits with the code it earned.
 */
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const fixture = (name: string) => path.join(REPO_ROOT, "tests/fixtures/plugins", `${name}.mjs`);

test("a timer, a listening socket and a stray rejection left by a plugin keep nothing alive and crash nothing", async () => {
  const p = tempProject({ ".agentrc.json": { plugins: [fixture("keep-alive")] }, "a.txt": "hello\n" });
  // A process kept alive by the interval or the socket would never exit: runCli then rejects after 20 s.
  const r = await runCli(["call", "read_file", '{"path":"a.txt"}'], { cwd: p.dir, configHome: p.configHome, timeoutMs: 20_000 });
  expect(r.stdout).toContain("hello");
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("agent: plugin keep-alive left an error nobody handled: stray rejection from keep-alive");
  expect(r.stderr).not.toMatch(/^\s+at /m);
});

test("with --debug the stray error's stack is shown", async () => {
  const p = tempProject({ ".agentrc.json": { plugins: [fixture("keep-alive")] }, "a.txt": "x\n" });
  const r = await runCli(["--debug", "call", "read_file", '{"path":"a.txt"}'], { cwd: p.dir, configHome: p.configHome, timeoutMs: 20_000 });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/keep-alive\.mjs:\d+/);
});
