/** Config loading: search places, project root, user config, .mcp.json, TS configs, merging. */
import path from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { loadConfig, mergeConfig } from "../../core/config/config.js";
import { CONFIG_SEARCH_PLACES, loadErrorMessage } from "../../kit/fs/config-file.js";
import { ConfigError } from "../../kit/errors.js";
import { prepareHost } from "../../core/embed.js";
import mcpPlugin from "../../plugins/mcp/index.js";
import { DIST_INDEX } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject, writeFile } from "../helpers/project.js";

afterAll(cleanupTemp);

const load = (cwd: string, userConfigDir: string | false = false) => loadConfig({ cwd, userConfigDir });
/** The config after the plugins' sections and config hooks: `.mcp.json` belongs to the MCP plugin. */
const prepared = (cwd: string, userConfigDir: string | false = false) =>
  prepareHost({ cwd, userConfigDir, builtins: [{ name: "mcp", load: async () => mcpPlugin }] });

describe("finding the project config", () => {
  test("the search places are the documented short list", () => {
    expect(CONFIG_SEARCH_PLACES).toEqual([
      "agent.config.ts",
      "agent.config.mts",
      "agent.config.js",
      "agent.config.mjs",
      ".agentrc",
      ".agentrc.json",
      ".agentrc.yaml",
      ".agentrc.yml",
      "package.json",
    ]);
  });

  test("searches up from a subfolder to the project root", async () => {
    const p = tempProject({ ".agentrc.json": { model: "openai:gpt-5.4" }, "src/deep/er/file.txt": "" });
    const loaded = await load(p.path("src/deep/er"));
    expect(loaded.config.model).toBe("openai:gpt-5.4");
    expect(loaded.files).toEqual([p.path(".agentrc.json")]);
    expect(loaded.projectRoot).toBe(p.dir);
    expect(loaded.configDir).toBe(p.dir);
  });

  test("stops at the project root (package.json): a config above it is not used", async () => {
    const p = tempProject({ "inner/package.json": { name: "inner" }, ".agentrc.json": { model: "outer:model" } });
    const loaded = await load(p.path("inner"));
    expect(loaded.files).toEqual([]);
    expect(loaded.config).toEqual({});
    expect(loaded.projectRoot).toBe(p.path("inner"));
  });

  test("stops at the project root (.git folder)", async () => {
    const p = tempProject({ "repo/.git/HEAD": "ref: refs/heads/main", "repo/src/x.txt": "", ".agentrc.json": { model: "outer:model" } });
    const loaded = await load(p.path("repo/src"));
    expect(loaded.files).toEqual([]);
    expect(loaded.projectRoot).toBe(p.path("repo"));
  });

  test("the nearest config wins over one further up", async () => {
    const p = tempProject({ ".agentrc.json": { model: "root:model" }, "pkg/.agentrc.yaml": "model: pkg:model\n" });
    const loaded = await load(p.path("pkg"));
    expect(loaded.config.model).toBe("pkg:model");
    expect(loaded.projectRoot).toBe(p.path("pkg"));
  });

  test("package.json without an agent key is ignored; with one it is the config", async () => {
    const without = tempProject({ "package.json": { name: "x", version: "1.0.0" } });
    expect((await load(without.dir)).files).toEqual([]);
    const withKey = tempProject({ "package.json": { name: "x", agent: { model: "anthropic:claude-sonnet-5-5" } } });
    const loaded = await load(withKey.dir);
    expect(loaded.files).toEqual([withKey.path("package.json")]);
    expect(loaded.config.model).toBe("anthropic:claude-sonnet-5-5");
  });

  test("a package.json without an agent key does not hide a .agentrc in the same folder", async () => {
    const p = tempProject({ "package.json": { name: "x" }, ".agentrc.yml": "maxTurns: 7\n" });
    expect((await load(p.dir)).config.maxTurns).toBe(7);
  });

  test("search order within a folder: agent.config.* before .agentrc*", async () => {
    const p = tempProject({ "agent.config.mjs": "export default { maxTurns: 1 };", ".agentrc.json": { maxTurns: 2 } });
    const loaded = await load(p.dir);
    expect(loaded.config.maxTurns).toBe(1);
    expect(loaded.files).toEqual([p.path("agent.config.mjs")]);
  });

  test.each([
    [".agentrc", "maxTurns: 3\n"],
    [".agentrc", '{ "maxTurns": 3 }'],
    [".agentrc.json", '{ "maxTurns": 3 }'],
    [".agentrc.yaml", "maxTurns: 3\n"],
    ["agent.config.js", "export default { maxTurns: 3 };"],
    ["agent.config.mjs", "export default { maxTurns: 3 };"],
    ["agent.config.mts", "const n: number = 3;\nexport default { maxTurns: n };"],
  ])("loads %s (%j)", async (file, content) => {
    const p = tempProject({ [file]: content });
    expect((await load(p.dir)).config).toEqual({ maxTurns: 3 });
  });

  test("a TypeScript config with defineConfig, loaded through jiti", async () => {
    const p = tempProject({
      "agent.config.ts": `
import { defineConfig } from ${JSON.stringify(DIST_INDEX)};
type Mode = "plan" | "default";
const mode: Mode = "plan";
export default defineConfig({
  model: "openai:gpt-5.4",
  permissions: { mode, allow: ["read_file", "run_command(npm test:*)"] },
  tools: { timeoutMs: 30_000, overrides: { "mcp__github__*": { risk: "network" } } },
});
`,
    });
    const loaded = await load(p.dir);
    expect(loaded.config).toEqual({
      model: "openai:gpt-5.4",
      permissions: { mode: "plan", allow: ["read_file", "run_command(npm test:*)"] },
      tools: { timeoutMs: 30_000, overrides: { "mcp__github__*": { risk: "network" } } },
    });
  });

  test("an empty config file is an empty config", async () => {
    const p = tempProject({ ".agentrc.yaml": "" });
    expect((await load(p.dir)).config).toEqual({});
  });

  test("relative plugin paths and workspace roots are relative to the config file, npm names are kept", async () => {
    const p = tempProject({ "conf/.agentrc.json": { plugins: ["./p.mjs", ["../q.ts", { a: 1 }], "agent-plugin-x"], workspace: { roots: ["../shared"] } } });
    const loaded = await load(p.path("conf"));
    expect(loaded.config.plugins).toEqual([p.path("conf/p.mjs"), [p.path("q.ts"), { a: 1 }], "agent-plugin-x"]);
    expect(loaded.config.workspace?.roots).toEqual([p.path("shared")]);
  });
});

describe("user config and .mcp.json", () => {
  test("the user config merges under the project config; permission arrays are concatenated", async () => {
    const user = tempDir();
    writeFile(path.join(user, "config.yaml"), "model: user:model\nmaxTurns: 9\npermissions:\n  mode: acceptEdits\n  allow: [read_file, grep]\n  deny: [run_command(rm:*)]\ntools:\n  timeoutMs: 5000\n");
    const p = tempProject({
      ".agentrc.json": { model: "project:model", permissions: { allow: ["grep", "write_file(src/**)"], ask: ["fetch"] }, tools: { maxOutputBytes: 1000 } },
    });
    const loaded = await load(p.dir, user);
    expect(loaded.files).toEqual([path.join(user, "config.yaml"), p.path(".agentrc.json")]);
    expect(loaded.config).toEqual({
      model: "project:model",
      maxTurns: 9,
      permissions: { mode: "acceptEdits", allow: ["read_file", "grep", "write_file(src/**)"], deny: ["run_command(rm:*)"], ask: ["fetch"] },
      tools: { timeoutMs: 5000, maxOutputBytes: 1000 },
    });
  });

  test("config.json in the user folder works alone; AGENT_CONFIG_HOME is the default user folder", async () => {
    const user = tempDir();
    writeFile(path.join(user, "config.json"), { maxTurns: 4 });
    const p = tempProject();
    expect((await load(p.dir, user)).config).toEqual({ maxTurns: 4 });
    const saved = process.env.AGENT_CONFIG_HOME;
    process.env.AGENT_CONFIG_HOME = user;
    try {
      expect((await loadConfig({ cwd: p.dir })).config).toEqual({ maxTurns: 4 });
    } finally {
      if (saved === undefined) delete process.env.AGENT_CONFIG_HOME;
      else process.env.AGENT_CONFIG_HOME = saved;
    }
  });

  test(".mcp.json at the project root is merged by the MCP plugin; the agent config wins for a server in both", async () => {
    const p = tempProject({
      ".mcp.json": { mcpServers: { notes: { command: "node", args: ["notes.js"] }, github: { command: "gh-mcp" } } },
      ".agentrc.json": { mcpServers: { github: { url: "https://example.com/mcp" } } },
      "sub/x": "",
    });
    const loaded = await prepared(p.path("sub"));
    expect(loaded.config.mcpServers).toEqual({ notes: { command: "node", args: ["notes.js"] }, github: { url: "https://example.com/mcp" } });
    expect(loaded.configFiles).toEqual([p.path(".agentrc.json"), p.path(".mcp.json")]);
    // Core alone knows nothing of .mcp.json nor of the mcpServers section.
    expect((await load(p.path("sub"))).files).toEqual([p.path(".agentrc.json")]);
  });

  test("an MCP server defined in both the user and the project config is replaced whole, not merged", async () => {
    const user = tempDir();
    writeFile(path.join(user, "config.json"), { mcpServers: { s: { command: "local-server", args: ["--x"] } } });
    const p = tempProject({ ".agentrc.json": { mcpServers: { s: { url: "https://remote/mcp" } } } });
    expect((await prepared(p.dir, user)).config.mcpServers).toEqual({ s: { url: "https://remote/mcp" } });
  });

  test(".mcp.json alone (no agent config) is read", async () => {
    const p = tempProject({ ".mcp.json": { mcpServers: { a: { command: "a" } } } });
    const loaded = await prepared(p.dir);
    expect(loaded.config).toEqual({ mcpServers: { a: { command: "a" } } });
  });

  test("overrides (createHost({ config })) merge last and are validated", async () => {
    const p = tempProject({ ".agentrc.json": { maxTurns: 2, permissions: { allow: ["a"] } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, overrides: { maxTurns: 5, permissions: { allow: ["b"] } } });
    expect(loaded.config).toEqual({ maxTurns: 5, permissions: { allow: ["a", "b"] } });
    await expect(loadConfig({ cwd: p.dir, userConfigDir: false, overrides: { maxTurns: -1 } })).rejects.toThrow(ConfigError);
  });

  test("readFiles: false reads nothing", async () => {
    const p = tempProject({ ".agentrc.json": { maxTurns: 2 }, ".mcp.json": { mcpServers: {} } });
    const loaded = await loadConfig({ cwd: p.dir, readFiles: false });
    expect(loaded.files).toEqual([]);
    expect(loaded.config).toEqual({});
  });
});

describe("errors (unit; the CLI cases are in tests/cli/config-errors.test.ts)", () => {
  test("a ConfigError names the file and every key path", async () => {
    const p = tempProject({ ".agentrc.json": { maxTurns: 0, permissions: { mode: "yolo", allow: ["bad rule!"] } } });
    const err = await load(p.dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const e = err as ConfigError;
    expect(e.file).toBe(p.path(".agentrc.json"));
    expect(e.issues.map((i) => i.path).sort()).toEqual(["maxTurns", "permissions.allow[0]", "permissions.mode"]);
    expect(e.message.split("\n")[0]).toBe(`Invalid config in ${p.path(".agentrc.json")}:`);
  });

  test("loadErrorMessage keeps the message and the location, drops code frames", () => {
    const json = "JSON Error in /p/.agentrc.json: \n\n> 1 | {\"a\": 1,}\n    |         ^\n\nExpected double-quoted property name in JSON at position 8 while parsing '{\"a\": 1,}' \n";
    expect(loadErrorMessage(json, "/nonexistent/.agentrc.json")).toBe("Expected double-quoted property name in JSON at position 8 (line 1, column 9)");
    const yaml = "YAML Error in /p/a.yaml:\nbad indentation of a mapping entry (2:4)\n\n 1 | a: b\n 2 |   c: d\n--------^";
    expect(loadErrorMessage(yaml, "/p/a.yaml")).toBe("bad indentation of a mapping entry (2:4)");
    expect(loadErrorMessage("ParseError: Unexpected token  \n /p/agent.config.ts:2:18", "/p/agent.config.ts")).toBe("ParseError: Unexpected token (line 2, column 18)");
    expect(loadErrorMessage("boom", "/p/x.mjs")).toBe("boom");
  });

  test("mergeConfig deduplicates concatenated rule lists and replaces scalars", () => {
    expect(mergeConfig({ permissions: { allow: ["a", "b"] }, maxTurns: 1 }, { permissions: { allow: ["b", "c"] }, maxTurns: 2 })).toEqual({
      permissions: { allow: ["a", "b", "c"] },
      maxTurns: 2,
    });
  });
});

test("a config nested 100,000 deep is a config error naming the file and where, with no stack overflow", async () => {
  let deep = "1";
  for (let i = 0; i < 100_000; i++) deep = `[${deep}]`;
  const p = tempProject({ ".agentrc.json": `{"tools":{"overrides":{"x":${deep}}}}` });
  const err = await load(p.dir).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).file).toBe(p.path(".agentrc.json"));
  expect((err as ConfigError).issues[0]).toEqual({ path: "tools.overrides.x[0][0][0]…(64 levels)", message: "nested more than 64 levels deep; no config needs that (is the file generated wrongly?)" });
});
