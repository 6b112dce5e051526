/**
 * `--model gpt-4o` with no provider prefix, as Claude Code users type it: the one provider that knows
 * the name serves it (openai's names, anthropic's `claude-*`); an ambiguous or unknown name is a usage error.
 */
import { beforeAll, expect, test } from "vitest";
import { assertBuilt, cleanEnv, fakeOpenAiProject, runCli } from "./run-helpers.js";

beforeAll(assertBuilt);

test("--model gpt-4o is openai:gpt-4o; the session records the full reference", async () => {
  const { srv, project } = await fakeOpenAiProject([{ text: "Hi." }]);
  const env = cleanEnv({}, project.dir);
  const r = await runCli(["-p", "hello", "--model", "gpt-4o", "--output-format", "json"], { cwd: project.dir, env });
  expect(r.code, r.stderr).toBe(0);
  expect((srv.requests[0].body as { model: string }).model).toBe("gpt-4o");
  const listed = JSON.parse((await runCli(["sessions", "--json"], { cwd: project.dir, env })).stdout) as { model?: string }[];
  expect(listed[0].model).toBe("openai:gpt-4o");
}, 60_000);

test("a bare name no provider knows is still an unknown model; claude-* is anthropic's", async () => {
  const { project } = await fakeOpenAiProject([], { providers: { openai: { baseURL: "http://127.0.0.1:9/v1", apiKey: "k" }, proxy: { type: "anthropic", baseURL: "http://127.0.0.1:9" } } });
  const env = cleanEnv({}, project.dir);
  const unknown = await runCli(["-p", "hello", "--model", "llama3"], { cwd: project.dir, env });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('Unknown model: "llama3" is neither provider:model');
  // claude-* is anthropic's (the proxy of type anthropic does not claim bare names).
  const claude = await runCli(["doctor", "--json"], { cwd: project.dir, env: { ...env, AGENT_MODEL: "claude-sonnet-5-5" } });
  expect(JSON.parse(claude.stdout).problems).toEqual([]);
}, 60_000);
