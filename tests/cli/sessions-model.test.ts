/**
 * `agent sessions` names the model a session ran with when it came from `--model` (issue 20: the MODEL
 * column was empty), and the newest one after `-c --model <another>`. Needs `npm run build` first.
 */
import { beforeAll, expect, test } from "vitest";
import { assertBuilt, cleanEnv, fakeOpenAiProject, runCli } from "./run-helpers.js";

beforeAll(assertBuilt);


test("a session started with --model and no model in config lists that model; -c --model another lists the newer", async () => {
  // No `model` in the config: only the flag names one.
  const { srv, project } = await fakeOpenAiProject([{ text: "First." }, { text: "Second." }]);
  const env = cleanEnv({}, project.dir);
  const first = await runCli(["run", "--model", "openai:gpt-flag", "-p", "hello", "--output-format", "json"], { cwd: project.dir, env });
  expect(first.code, first.stderr).toBe(0);
  const id = JSON.parse(first.stdout).sessionId as string;
  expect((srv.requests[0].body as { model: string }).model).toBe("gpt-flag");

  const listed = JSON.parse((await runCli(["sessions", "--json"], { cwd: project.dir, env })).stdout) as { id: string; model?: string }[];
  expect(listed).toEqual([expect.objectContaining({ id, model: "openai:gpt-flag" })]);
  const text = await runCli(["sessions"], { cwd: project.dir, env });
  expect(text.stdout).toMatch(new RegExp(`^${id} .* 1 +openai:gpt-flag +hello$`, "m"));

  const second = await runCli(["run", "-c", "--model", "openai:gpt-later", "-p", "again", "--output-format", "json"], { cwd: project.dir, env });
  expect(second.code, second.stderr).toBe(0);
  const after = JSON.parse((await runCli(["sessions", "--json"], { cwd: project.dir, env })).stdout) as { id: string; model?: string }[];
  expect(after).toEqual([expect.objectContaining({ id, model: "openai:gpt-later" })]);
});
