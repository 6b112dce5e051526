/**
 * The instructions plugin in the `agent` command: AGENTS.md in the system prompt of `agent -p`, and
 * nothing of it (in the prompt or in `agent doctor`) once the plugin is disabled.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { systemOf } from "../../core/loop-helpers.js";
import { assertBuilt, cleanEnv, fakeOpenAiProject, runCli } from "../../cli/run-helpers.js";

beforeAll(assertBuilt);

test("agent -p sends AGENTS.md; with disabledPlugins: [instructions] neither the prompt nor agent doctor has it", async () => {
  const { srv, project } = await fakeOpenAiProject(["on", "off"], { model: "openai:gpt-fake" });
  const env = cleanEnv({}, project.dir);
  writeFileSync(path.join(project.dir, "AGENTS.md"), "House rule.");
  expect((await runCli(["-p", "x"], { cwd: project.dir, env })).code).toBe(0);
  expect(systemOf("openai", srv.requests[0])).toContain("\n\n# Project instructions (AGENTS.md)\n\nHouse rule.");

  const config = path.join(project.dir, ".agentrc.json");
  writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, "utf8")), disabledPlugins: ["instructions"] }));
  expect((await runCli(["-p", "x"], { cwd: project.dir, env })).code).toBe(0);
  expect(systemOf("openai", srv.requests[1])).not.toContain("House rule.");
  const doctor = await runCli(["doctor"], { cwd: project.dir, env });
  expect(doctor.stdout).toContain("instructions: off (the instructions plugin is not loaded)");
  await project.remove();
});
