/**
 * A Claude Code plugin folder and an Agent Plugins 1.0 package load as agent-host plugins: commands
 * namespaced `plugin:command` (bodies with `${CLAUDE_PLUGIN_ROOT}`), skills, a hook that runs with the
 * plugin's variables, MCP servers started from the plugin's folder (real processes over stdio); parts
 * that do not run here (agents, output styles, a client extension) are listed, never dropped silently.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";
import { AGENT_PLUGIN, COMMIT_TOOLS, pluginHost, SERVER_TOOLS } from "./_helpers.js";

vi.setConfig({ testTimeout: 60_000 });
afterEach(closeHosts);
afterAll(cleanupTemp);

describe("a Claude Code plugin folder", () => {
  test("its commands are /plugin:command, expanded with ${CLAUDE_PLUGIN_ROOT}; its skill is listed; unsupported parts are warnings", async () => {
    const project = tempProject();
    const { host } = await pluginHost(project, { plugins: [COMMIT_TOOLS] });
    expect(host.plugins.find((p) => p.name === "commit-tools")).toMatchObject({ status: "loaded", version: "1.0.0", dir: COMMIT_TOOLS });
    const names = host.commands.list().map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["commit-tools:commit", "commit-tools:git:status"]));
    const result = await host.commands.run("/commit-tools:commit fix the parser");
    expect(result.prompt).toContain("Create a single git commit with the message: fix the parser");
    expect(result.prompt).toContain(`The plugin lives in ${COMMIT_TOOLS}.`);
    expect(host.skills.list().map((s) => s.name)).toContain("commit-style");
    // Its agent is registered (nothing runs subagents yet; the warning below says so).
    expect(host.agents.get("reviewer")).toMatchObject({ description: "Reviews a commit before it is made", tools: ["Read", "Grep"], prompt: "You review commits.", source: "plugin:commit-tools" });
    const warnings = host.problems.filter((p) => p.level === "warning").map((p) => p.message);
    expect(warnings).toContain("Plugin commit-tools: 1 agent(s) in agents/: registered, but not supported yet (nothing runs subagents)");
    expect(warnings).toContain("Plugin commit-tools: output styles (output-styles/); not loaded");
    expect(host.problems.filter((p) => p.level !== "warning")).toEqual([]);
  });

  test("its PreToolUse hook runs on a matching call with CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA set", async () => {
    const project = tempProject({ "notes.txt": "hello\n" });
    const { host } = await pluginHost(project, { plugins: [COMMIT_TOOLS] });
    const result = await host.tools.call("read_file", { path: "notes.txt" });
    expect(result.ok).toBe(true);
    const data = path.join(project.configHome, "plugins", "data", "commit-tools-inline");
    const lines = readFileSync(path.join(data, "reads.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ tool: "Read", root: COMMIT_TOOLS, data })]);
  });

  test("its .mcp.json server starts from the plugin's folder and its tools are mcp__plugin_<plugin>_<server>__<tool>", async () => {
    const project = tempProject();
    const { host } = await pluginHost(project, { plugins: [SERVER_TOOLS], permissionMode: "bypass" });
    const add = await host.tools.call("mcp__plugin_server-tools_calc__add", { a: 2, b: 3 });
    expect(add.output).toBe("5");
    const where = JSON.parse(String((await host.tools.call("mcp__plugin_server-tools_calc__where", {})).output));
    expect(where).toEqual({ script: path.join(SERVER_TOOLS, "server.mjs"), cwd: SERVER_TOOLS, mode: "calc-from-claude-plugin" });
  });
});

describe("an Agent Plugins 1.0 package", () => {
  test("its skills and mcp.json servers load (${PLUGIN_ROOT}); a client extension folder is listed as not supported", async () => {
    const project = tempProject();
    const { host } = await pluginHost(project, { plugins: [AGENT_PLUGIN], permissionMode: "bypass" });
    expect(host.plugins.find((p) => p.name === "portable-tools")).toMatchObject({ status: "loaded", version: "1.0.0" });
    expect(host.skills.list().map((s) => s.name)).toContain("portable-skill");
    const where = JSON.parse(String((await host.tools.call("mcp__plugin_portable-tools_calc__where", {})).output));
    expect(where).toEqual({ script: path.join(AGENT_PLUGIN, "server.mjs"), cwd: AGENT_PLUGIN, mode: "calc-from-agent-plugin" });
    expect(host.problems.map((p) => p.message)).toContain("Plugin portable-tools: client extension com.example.client/; not loaded");
  });
});

describe("--plugin-dir (Claude Code's flag)", () => {
  test("loads a plugin folder for one run: its commands, its server's tools; agent doctor lists what is not supported", async () => {
    const project = tempProject();
    const flags = ["--plugin-dir", COMMIT_TOOLS, "--plugin-dir", AGENT_PLUGIN];
    const commands = await runCli([...flags, "commands", "--json"], { cwd: project.dir, configHome: project.configHome });
    expect(commands.code).toBe(0);
    expect(JSON.parse(commands.stdout).map((c: { name: string }) => c.name)).toContain("commit-tools:commit");
    const call = await runCli([...flags, "--permission-mode", "bypass", "call", "mcp__plugin_portable-tools_calc__add", '{"a":20,"b":22}'], { cwd: project.dir, configHome: project.configHome });
    expect(call.stdout.trim()).toBe("42");
    const doctor = await runCli([...flags, "doctor"], { cwd: project.dir, configHome: project.configHome });
    expect(doctor.stdout).toContain("Plugin commit-tools: 1 agent(s) in agents/: registered, but not supported yet (nothing runs subagents)");
    expect(doctor.stdout).toContain("Plugin portable-tools: client extension com.example.client/");
    const missing = await runCli(["--plugin-dir", path.join(project.dir, "nope"), "tools"], { cwd: project.dir, configHome: project.configHome });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--plugin-dir");
    expect(existsSync(path.join(project.configHome, "plugins", "lock.json"))).toBe(false);
  });
});

describe("a plugin's hooks in a conversation", () => {
  test("a SessionStart hook in the shape superpowers ships (a script under ${CLAUDE_PLUGIN_ROOT}, shell bash) gives the model its context", async () => {
    const { scriptedProvider } = await import("../../../testing/index.js");
    const { chmodSync } = await import("node:fs");
    const project = tempProject({
      "plug/.claude-plugin/plugin.json": { name: "starter", version: "6.2.0" },
      "plug/hooks/hooks.json": { hooks: { SessionStart: [{ matcher: "startup|clear|compact", hooks: [{ type: "command", command: '"${CLAUDE_PLUGIN_ROOT}/hooks/session-start" go', shell: "bash", async: false }] }] } },
      "plug/hooks/session-start": '#!/usr/bin/env bash\necho "starter says $1 from $CLAUDE_PLUGIN_ROOT"\n',
    });
    chmodSync(project.path("plug/hooks/session-start"), 0o755);
    const model = scriptedProvider([{ text: "hello" }]);
    const { host } = await pluginHost(project, { plugins: [project.path("plug"), { name: "scripted-model", providers: [model] }], config: { model: "scripted:test" } });
    const result = await host.run("hi");
    expect(result.ok).toBe(true);
    expect(model.requests[0].system).toContain(`starter says go from ${project.path("plug")}`);
  });
});
