/**
 * A Markdown command's `model:` (Claude Code's frontmatter) picks the model of its turn through the CLI,
 * headless: the request the provider gets names it; the next plain prompt is back on the session's model.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, tempDir, type FakeServer } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, runCli } from "./run-helpers.js";

beforeAll(assertBuilt);
let srv: FakeServer | undefined;
let remove: (() => Promise<void>) | undefined;
afterEach(async () => {
  await srv?.close();
  await remove?.();
  srv = remove = undefined;
});

test("agent run -p /cmd sends the command's model; a plain prompt the session's", async () => {
  const tmp = await tempDir("agent-command-model-");
  remove = tmp.remove;
  srv = await startFake("anthropic", [{ text: "one" }, { text: "two" }]);
  const dir = tmp.dir;
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "p", private: true }));
  mkdirSync(path.join(dir, ".claude", "commands"), { recursive: true });
  writeFileSync(path.join(dir, ".claude", "commands", "quick.md"), "---\nmodel: claude-3-5-haiku-20241022\ndescription: Quick answer\n---\nAnswer quickly.\n");
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ model: "anthropic:claude-sonnet-test", providers: { anthropic: { baseURL: srv.baseURL, apiKey: "k" } } }));
  const env = cleanEnv({}, dir);
  const cmd = await runCli(["run", "-p", "/quick"], { cwd: dir, env });
  expect(cmd.code, cmd.stderr).toBe(0);
  const plain = await runCli(["run", "-p", "hello"], { cwd: dir, env });
  expect(plain.code, plain.stderr).toBe(0);
  expect(srv.requests.map((r) => r.body.model)).toEqual(["claude-3-5-haiku-20241022", "claude-sonnet-test"]);
});
