/**
 * `agent plugin add/remove` on every kind of project config, through the built CLI: JSON keeps its other
 * keys, YAML keeps its comments, package.json#agent is edited in place, a TS config is left alone with the
 * exact line to add; a local folder is really installed (npm, offline) and uninstalled again.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const OFFLINE = { npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
const agent = (p: ReturnType<typeof tempProject>, args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome, env: OFFLINE, timeoutMs: 60_000 });
const read = (p: ReturnType<typeof tempProject>, f: string) => readFileSync(p.path(f), "utf8");

describe.concurrent("editing the project's config", () => {
  test("no config yet: .agentrc.json is created", async () => {
    const p = tempProject();
    const r = await agent(p, ["plugin", "add", "agent-plugin-x", "--no-install"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(p, ".agentrc.json"))).toEqual({ plugins: ["agent-plugin-x"] });
  });

  test("JSON: other keys and the indentation are kept; adding twice is a no-op that says so", async () => {
    const p = tempProject({ ".agentrc.json": '{\n    "model": "openai:gpt-5.4",\n    "plugins": ["a"]\n}\n' });
    await agent(p, ["plugin", "add", "b", "--no-install"]);
    expect(read(p, ".agentrc.json")).toBe('{\n    "model": "openai:gpt-5.4",\n    "plugins": [\n        "a",\n        "b"\n    ]\n}\n');
    const again = await agent(p, ["plugin", "add", "agent-plugin-b", "--no-install"]);
    expect(again.stdout).toContain(`agent-plugin-b is already in the plugins of ${p.path(".agentrc.json")}`);
  });

  test("YAML: comments survive", async () => {
    const p = tempProject({ ".agentrc.yaml": "# team settings\nmodel: openai:gpt-5.4 # the default\nplugins:\n  - a # first\n" });
    const r = await agent(p, ["plugin", "add", "b", "--no-install"]);
    expect(r.code, r.stderr).toBe(0);
    const text = read(p, ".agentrc.yaml");
    expect(text).toContain("# team settings");
    expect(text).toContain("# the default");
    expect(text).toMatch(/plugins:\n\s+- a\n\s+- b\n/);
  });

  test("package.json#agent is edited in place", async () => {
    const p = tempProject({ "package.json": { name: "proj", private: true, agent: { maxTurns: 3 } } });
    await agent(p, ["plugin", "add", "b", "--no-install"]);
    expect(JSON.parse(read(p, "package.json"))).toEqual({ name: "proj", private: true, agent: { maxTurns: 3, plugins: ["b"] } });
  });

  test("agent.config.ts is code: left alone, with the exact line to add", async () => {
    const source = 'import { defineConfig } from "agent-host";\nexport default defineConfig({ maxTurns: 2 });\n';
    const p = tempProject({ "agent.config.ts": source });
    const r = await agent(p, ["plugin", "add", "b", "--no-install"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('agent.config.ts is code, so it was not changed: add "b" to plugins: plugins: ["b"]');
    expect(read(p, "agent.config.ts")).toBe(source);
  });

  test("remove takes it out of the config; an unknown name is a usage error", async () => {
    const p = tempProject({ ".agentrc.json": { plugins: ["a", ["agent-plugin-b", { x: 1 }]] } });
    const r = await agent(p, ["plugin", "remove", "b", "--keep-package"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(p, ".agentrc.json"))).toEqual({ plugins: ["a"] });
    const none = await agent(p, ["plugin", "remove", "zzz"]);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('no plugin "zzz"') });
  });
});

test("a local plugin folder is installed with npm and enabled, then removed and uninstalled", async () => {
  const p = tempProject({
    "plugins-src/agent-plugin-local/package.json": { name: "agent-plugin-local", version: "1.0.0", type: "module", exports: "./index.mjs" },
    "plugins-src/agent-plugin-local/index.mjs": 'export default { name: "local", tools: [{ name: "local_tool", description: "d", risk: "read", inputSchema: { type: "object" }, run: () => "from local" }] };\n',
  });
  const added = await agent(p, ["plugin", "add", "./plugins-src/agent-plugin-local"]);
  expect(added.code, added.stderr + added.stdout).toBe(0);
  expect(added.stdout).toContain("Installed agent-plugin-local from ./plugins-src/agent-plugin-local.");
  expect(JSON.parse(read(p, "package.json")).devDependencies).toEqual({ "agent-plugin-local": "file:plugins-src/agent-plugin-local" });
  expect((await agent(p, ["call", "local_tool"])).stdout).toBe("from local\n");

  const removed = await agent(p, ["plugin", "remove", "local"]);
  expect(removed.code, removed.stderr).toBe(0);
  expect(removed.stdout).toContain("Uninstalled agent-plugin-local.");
  expect(JSON.parse(read(p, ".agentrc.json"))).toEqual({ plugins: [] });
  expect(existsSync(p.path("node_modules/agent-plugin-local"))).toBe(false);
});

describe("folder trust, as a user who has not trusted the folder meets it", () => {
  const UNTRUSTED = { ...OFFLINE, AGENT_TRUST: undefined };
  const localPlugin = {
    "plugins-src/agent-plugin-local/package.json": { name: "agent-plugin-local", version: "1.0.0", type: "module", exports: "./index.mjs" },
    "plugins-src/agent-plugin-local/index.mjs": 'export default { name: "local", tools: [{ name: "local_tool", description: "d", risk: "read", inputSchema: { type: "object" }, run: () => "from local" }] };\n',
  };
  const run = (p: ReturnType<typeof tempProject>, args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome, env: UNTRUSTED, timeoutMs: 60_000 });

  test("the plugin just added is all the folder runs: the folder is trusted for it, and its tool runs", async () => {
    const p = tempProject(localPlugin);
    const added = await run(p, ["plugin", "add", "./plugins-src/agent-plugin-local"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("agent-plugin-local is all this folder runs that was not trusted, so the folder is trusted for it");
    const called = await run(p, ["call", "local_tool"]);
    expect(called).toMatchObject({ code: 0, stdout: "from local\n", stderr: "" });
  });

  test("a folder that ships another plugin is not trusted by plugin add: it says what agent trust would admit", async () => {
    const p = tempProject({
      ...localPlugin,
      ".agentrc.json": { plugins: ["./shipped.mjs"] },
      "shipped.mjs": 'export default { name: "shipped", tools: [] };\n',
    });
    const added = await run(p, ["plugin", "add", "./plugins-src/agent-plugin-local"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("is not trusted, so agent-plugin-local loads once you trust it: agent trust");
    expect(added.stdout).toMatch(/That also admits what the folder ships:\n.*shipped\.mjs/);
    expect(existsSync(`${p.configHome}/trusted-folders.json`)).toBe(false);
    const called = await run(p, ["call", "local_tool"]);
    expect(called.code).not.toBe(0);
    expect(called.stderr).toContain("this folder is not trusted");
  });
});
