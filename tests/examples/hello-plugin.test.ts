/**
 * The example plugin package as a user gets it: installed in a project's node_modules (without
 * agent-host next to it), enabled by its short name with options, run through the built CLI.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

function projectWithHello() {
  const project = tempProject({ ".agentrc.json": { plugins: [["hello", { greeting: "Hi" }]] } });
  cpSync(path.join(REPO_ROOT, "examples/agent-plugin-hello"), project.path("node_modules/agent-plugin-hello"), { recursive: true });
  return project;
}

describe("examples/agent-plugin-hello", () => {
  test("loads by its short name, with options, and its tool runs through the gate", async () => {
    const p = projectWithHello();
    const r = await runCli(["call", "greet", '{"name":"Ann"}'], { cwd: p.dir, configHome: p.configHome });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("Hi, Ann!\n");
    expect(r.code).toBe(0);
  });

  test("registers one tool, one command and one skill", async () => {
    const p = projectWithHello();
    const r = await runCli(["plugins", "--json"], { cwd: p.dir, configHome: p.configHome });
    const hello = (JSON.parse(r.stdout) as { name: string }[]).find((x) => x.name === "hello");
    expect(hello).toMatchObject({ status: "loaded", from: "hello", tools: 1, commands: 1, skills: 1 });
  });

  test("its beforeToolCall handler denies, and the CLI exits 3", async () => {
    const p = projectWithHello();
    const r = await runCli(["call", "greet", '{"name":"nobody"}', "--json"], { cwd: p.dir, configHome: p.configHome });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { code: "E_TOOL_DENIED", message: "Denied by a plugin: refusing to greet nobody" } });
  });
});
