/**
 * Malformed configs, each in its own temp project, through the BUILT CLI (`node dist/cli.js tools`):
 * exit 2, and a stderr message naming the file and the key path (or the line), with no stack trace.
 */
import path from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { runCli } from "../helpers/cli.js";
import { cleanupTemp, tempProject, writeFile } from "../helpers/project.js";

afterAll(cleanupTemp);
// Each test spawns the CLI, several times for some: generous on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000 });

interface Case {
  name: string;
  /** Project files. */
  files?: Record<string, string | object>;
  /** User config files (in AGENT_CONFIG_HOME). */
  user?: Record<string, string | object>;
  /** The file the message must name: `project:<rel>` or `user:<rel>`. */
  file: string;
  /** Text the message must contain: the key path line, or the location for syntax errors. */
  expect: (string | RegExp)[];
}

const CASES: Case[] = [
  {
    name: ".agentrc.json: permissions.mode not a mode",
    files: { ".agentrc.json": { permissions: { mode: "yolo" } } },
    file: "project:.agentrc.json",
    expect: ["  permissions.mode: ", '"default"|"plan"|"acceptEdits"|"bypass"'],
  },
  {
    name: ".agentrc.json: a misspelled top-level key",
    files: { ".agentrc.json": { modle: "openai:gpt-5.4" } },
    file: "project:.agentrc.json",
    expect: ['  modle: unknown key; did you mean "model"? (no loaded plugin uses it)'],
  },
  {
    name: ".agentrc.json: tools.timeoutMs negative",
    files: { ".agentrc.json": { tools: { timeoutMs: -5 } } },
    file: "project:.agentrc.json",
    expect: ["  tools.timeoutMs: "],
  },
  {
    name: ".agentrc.json: tools.overrides.<tool>.maxOutputBytes not an integer",
    files: { ".agentrc.json": { tools: { overrides: { "mcp__github__*": { maxOutputBytes: 1.5 } } } } },
    file: "project:.agentrc.json",
    expect: ["  tools.overrides.mcp__github__*.maxOutputBytes: "],
  },
  {
    name: ".agentrc.json: providers.openai not an object",
    files: { ".agentrc.json": { providers: { openai: "sk-nope" } } },
    file: "project:.agentrc.json",
    expect: ["  providers.openai: "],
  },
  {
    name: ".agentrc.json: invalid JSON (trailing comma)",
    files: { ".agentrc.json": '{\n  "maxTurns": 3,\n  "model": "openai:gpt-5.4",\n}\n' },
    file: "project:.agentrc.json",
    expect: ["  (root): could not be loaded: ", /\(line 4, column 1\)/],
  },
  {
    name: ".agentrc.json: invalid JSON (missing value: V8 gives no position; the line and column are found)",
    files: { ".agentrc.json": '{\n  "maxTurns": 3,\n  "model": \n}\n' },
    file: "project:.agentrc.json",
    expect: ["  (root): could not be loaded: a value was expected (line 4, column 1)"],
  },
  {
    name: ".agentrc.yaml: permissions.allow not a list",
    files: { ".agentrc.yaml": "permissions:\n  allow: read_file\n" },
    file: "project:.agentrc.yaml",
    expect: ["  permissions.allow: "],
  },
  {
    name: ".agentrc.yaml: a malformed rule in permissions.allow",
    files: { ".agentrc.yaml": "permissions:\n  allow:\n    - read_file\n    - run command(npm test)\n" },
    file: "project:.agentrc.yaml",
    expect: ['  permissions.allow[1]: invalid rule "run command(npm test)": the tool part "run command" may only hold letters'],
  },
  {
    name: ".agentrc.yaml: invalid YAML",
    files: { ".agentrc.yaml": "permissions:\n  allow: [read_file\n" },
    file: "project:.agentrc.yaml",
    expect: ["  (root): could not be loaded: ", /\(3:\d+\)/],
  },
  {
    name: ".agentrc: model without a provider",
    files: { ".agentrc": "model: gpt-5.4\n" },
    file: "project:.agentrc",
    expect: ["  model: ", "provider:model"],
  },
  {
    name: "agent.config.ts: an invalid risk in tools.overrides",
    files: { "agent.config.ts": 'export default { tools: { overrides: { read_file: { risk: "safe" } } } };\n' },
    file: "project:agent.config.ts",
    expect: ["  tools.overrides.read_file.risk: "],
  },
  {
    name: "agent.config.ts: a syntax error",
    files: { "agent.config.ts": "const x: number = 1;\nexport default { maxTurns: x, };;;\nconst = ;\n" },
    file: "project:agent.config.ts",
    expect: ["  (root): could not be loaded: ", /line 3/],
  },
  {
    name: "agent.config.mjs: a plugin entry that is a number",
    files: { "agent.config.mjs": 'export default { plugins: ["./a.mjs", 42] };\n' },
    file: "project:agent.config.mjs",
    expect: ["  plugins[1]: "],
  },
  {
    name: "agent.config.mjs: throws while loading",
    files: { "agent.config.mjs": 'throw new Error("config needs FOO_URL");\n' },
    file: "project:agent.config.mjs",
    expect: ["  (root): could not be loaded: config needs FOO_URL"],
  },
  {
    name: "agent.config.mjs: exports an array",
    files: { "agent.config.mjs": "export default [1, 2];\n" },
    file: "project:agent.config.mjs",
    expect: ["  (root): expected an object, got an array"],
  },
  {
    name: "package.json#agent: maxTurns is a string",
    files: { "package.json": { name: "p", agent: { maxTurns: "ten" } } },
    file: "project:package.json",
    expect: ["  maxTurns: "],
  },
  {
    name: "package.json#agent: audit.enabled is not a boolean",
    files: { "package.json": { name: "p", agent: { audit: { enabled: "yes" } } } },
    file: "project:package.json",
    expect: ["  audit.enabled: "],
  },
  {
    name: "package.json: not JSON at all",
    files: { "package.json": '{ "name": "p", ' },
    file: "project:package.json",
    expect: ["  (root): could not be loaded: ", /\(line 1, column 16\)/],
  },
  {
    name: "user config.json: workspace.roots not a list",
    user: { "config.json": { workspace: { roots: "../other" } } },
    file: "user:config.json",
    expect: ["  workspace.roots: "],
  },
  {
    name: "user config.yaml: a bad deny rule",
    user: { "config.yaml": "permissions:\n  deny:\n    - 'rm -rf'\n" },
    file: "user:config.yaml",
    expect: ["  permissions.deny[0]: "],
  },
  {
    name: ".mcp.json: mcpServers is a list",
    files: { ".mcp.json": { mcpServers: [{ command: "x" }] } },
    file: "project:.mcp.json",
    expect: ["  mcpServers: "],
  },
  {
    name: ".mcp.json: invalid JSON",
    files: { ".mcp.json": '{ "mcpServers": { "a": { "command": "x", } } }' },
    file: "project:.mcp.json",
    expect: ["  (root): could not be parsed as JSON"],
  },
];

describe.concurrent("malformed configs: exit 2, file and key path named, no stack trace", () => {
  test.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const project = tempProject(c.files ?? {});
    for (const [rel, content] of Object.entries(c.user ?? {})) writeFile(path.join(project.configHome, rel), content);
    const [where, rel] = c.file.split(":");
    const file = where === "user" ? path.join(project.configHome, rel) : project.path(rel);

    const r = await runCli(["tools"], { cwd: project.dir, configHome: project.configHome });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`agent: Invalid config in ${file}:\n`);
    for (const e of c.expect) {
      if (typeof e === "string") expect(r.stderr).toContain(e);
      else expect(r.stderr).toMatch(e);
    }
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).not.toContain("--debug for details");
  });
});

describe.concurrent("other commands report config errors the same way", () => {
  test.each([["config"], ["doctor"], ["plugins"], ["call", "read_file", "{}"], ["audit"]])("agent %s", async (...args) => {
    const project = tempProject({ ".agentrc.json": { permissions: { mode: "yolo" } } });
    const r = await runCli(args, { cwd: project.dir, configHome: project.configHome });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(project.path(".agentrc.json"));
    expect(r.stderr).toContain("permissions.mode");
  });
});

test("there are at least 15 malformed config cases, in every supported format", () => {
  expect(CASES.length).toBeGreaterThanOrEqual(15);
  const files = new Set(CASES.map((c) => c.file.replace(/^(project|user):/, "$1:")));
  for (const f of ["project:.agentrc", "project:.agentrc.json", "project:.agentrc.yaml", "project:agent.config.ts", "project:agent.config.mjs", "project:package.json", "project:.mcp.json", "user:config.json", "user:config.yaml"]) {
    expect(files.has(f), f).toBe(true);
  }
});

test("a UTF-8 BOM in a JSON config is accepted", async () => {
  const project = tempProject({ ".agentrc.json": "\uFEFF" + JSON.stringify({ maxTurns: 7 }) });
  const r = await runCli(["config", "--json"], { cwd: project.dir, configHome: project.configHome });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).config).toMatchObject({ maxTurns: 7 });
});

test("a bad server entry in .mcp.json costs only that server: it is reported and the rest of the CLI works", async () => {
  const project = tempProject({ ".mcp.json": { mcpServers: { notes: "node notes.js" } } });
  const r = await runCli(["tools"], { cwd: project.dir, configHome: project.configHome });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain("read_file");
  expect(r.stderr).toContain('MCP server notes is misconfigured: mcpServers.notes: expected an object like { "command": "...", "args": [...] } or { "url": "..." }, got the string "node notes.js". Continuing without notes tools.');
});
