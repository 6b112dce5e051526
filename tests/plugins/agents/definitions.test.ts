/**
 * Agent definitions in Claude Code's format: real files (tests/fixtures/agents: superpowers' copied, and
 * files in the shape of Anthropic's claude-code plugins' agents), discovery and precedence, what is
 * reported, the built-in agents, the tools an agent gets, `/agents` and `agent agents --json`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { parseAgentFile } from "../../../plugins/agents/agent-file.js";
import { agentTools } from "../../../plugins/agents/agent-tools.js";
import type { RegisteredAgent } from "../../../core/index.js";
import { runCli } from "../../helpers/cli.js";
import { closeHosts } from "../../helpers/host.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";
import { agentFile, agentsHost } from "./helpers.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const FIXTURES = path.join(REPO_ROOT, "tests", "fixtures", "agents");
const fixture = (rel: string) => readFileSync(path.join(FIXTURES, rel), "utf8");
const parse = (rel: string) => parseAgentFile(rel, fixture(rel), "project");

describe("agent files", () => {
  test("superpowers' agents parse unchanged; Claude Code keys agent-host does not act on are kept, not reported", () => {
    const reviewer = parse("superpowers/code-reviewer.md");
    expect(reviewer).toMatchObject({ ok: true, file: { unknownKeys: [], definition: { name: "code-reviewer", model: "inherit", meta: { memory: "user" } } } });
    if (!reviewer.ok) return;
    expect(reviewer.file.definition.prompt).toMatch(/^You are a senior code reviewer\./);
    expect(reviewer.file.definition.tools).toBeUndefined();
    expect(parse("superpowers/worker-low-effort.md")).toMatchObject({ ok: true, file: { definition: { name: "worker-low-effort", meta: { effort: "low" } } } });
  });

  test("a description over several unquoted lines with <example> blocks (invalid YAML) is read as Claude Code reads it", () => {
    const parsed = parse("claude-style/doc-checker.md");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const def = parsed.file.definition;
    expect(def.description).toMatch(/^Use this agent when documentation may have drifted[\s\S]*Context: The user changed[\s\S]*<\/example>$/);
    expect(def).toMatchObject({ name: "doc-checker", model: "sonnet", tools: ["Glob", "Grep", "LS", "Read", "NotebookRead", "WebFetch", "TodoWrite", "WebSearch"], meta: { color: "yellow" } });
    expect(def.prompt).toMatch(/^You check documentation against code\./);
    const lister = parse("claude-style/lister.md");
    expect(lister).toMatchObject({ ok: true, file: { definition: { name: "lister", tools: ["Read", "Glob"], model: "inherit" } } });
    if (lister.ok) expect(lister.file.definition.description).toContain('Context: a new repository\nuser: "what is here?"');
  });

  test.each([
    ["no frontmatter", "Just a prompt.", /no YAML frontmatter/],
    ["no name", agentFile({ description: "d" }, "p"), /no name/],
    ["a bad name", agentFile({ name: "Code_Reviewer", description: "d" }, "p"), /invalid name "Code_Reviewer"/],
    ["no description", agentFile({ name: "x" }, "p"), /no description/],
    ["an unknown mode", agentFile({ name: "x", description: "d", permissionMode: "yolo" }, "p"), /unknown permissionMode "yolo"/],
    ["zero turns", agentFile({ name: "x", description: "d", maxTurns: "0" }, "p"), /maxTurns must be a positive whole number/],
  ])("refuses a file with %s, saying why", (_case, text, reason) => {
    const parsed = parseAgentFile("x.md", text, "project");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(reason);
  });

  test("Claude Code's fields map: a YAML list of tools, disallowedTools, bypassPermissions, maxTurns, skills; unknown keys are reported", () => {
    const text = agentFile({ name: "x", description: "d", tools: "\n  - Read\n  - Bash(git log:*)", disallowedTools: "Write", permissionMode: "bypassPermissions", maxTurns: "3", skills: "a, b", flavour: "mint" }, "p");
    expect(parseAgentFile("x.md", text, "user")).toMatchObject({
      ok: true,
      file: { unknownKeys: ["flavour"], definition: { tools: ["Read", "Bash(git log:*)"], disallowedTools: ["Write"], permissionMode: "bypass", maxTurns: 3, skills: ["a", "b"], source: "user", meta: { flavour: "mint" } } },
    });
  });
});

describe("discovery and listing", () => {
  test("project over user over built-in; invalid, shadowed and odd files reported with path and reason; /agents lists them", async () => {
    const project = tempProject({
      ".claude/agents/doc-checker.md": fixture("claude-style/doc-checker.md"),
      ".agent/agents/review/code-reviewer.md": fixture("superpowers/code-reviewer.md"),
      ".claude/agents/explore.md": agentFile({ name: "explore", description: "The project's own explorer.", tools: "Read" }, "Explore our way."),
      ".claude/agents/broken.md": "no frontmatter here",
      ".claude/agents/odd.md": agentFile({ name: "odd", description: "d", flavour: "mint" }, "p"),
    });
    project.write("../user-config/agents/doc-checker.md", agentFile({ name: "doc-checker", description: "The user's." }, "p"));
    project.write("../user-config/agents/mine.md", agentFile({ name: "mine", description: "The user's own." }, "p"));
    const h = await agentsHost({}, [], { project, userConfigDir: project.configHome, loadConfigFiles: true, trust: true });
    const agents = Object.fromEntries(h.host.agents.list().map((a) => [a.name, a]));
    expect(Object.keys(agents).sort()).toEqual(["code-reviewer", "doc-checker", "explore", "general-purpose", "mine", "odd"]);
    expect(agents["doc-checker"]).toMatchObject({ source: "project", path: project.path(".claude/agents/doc-checker.md") });
    expect(agents.explore).toMatchObject({ source: "project", prompt: "Explore our way." });
    expect(agents.mine).toMatchObject({ source: "user" });
    expect(agents["general-purpose"]).toMatchObject({ source: "builtin", plugin: "agents" });
    const messages = h.host.problems.map((p) => p.message);
    expect(messages).toContain(`Agent file ${project.path(".claude/agents/broken.md")} skipped: no YAML frontmatter (the file must start with --- and a name and description)`);
    expect(messages).toContain(`Agent file ${path.join(project.configHome, "agents/doc-checker.md")} skipped: agent "doc-checker" is shadowed by ${project.path(".claude/agents/doc-checker.md")}`);
    expect(messages).toContain(`Agent file ${project.path(".claude/agents/odd.md")}: unknown frontmatter key flavour kept and ignored`);

    const listed = (await h.host.commands.run("/agents")).output!;
    expect(listed).toMatch(/doc-checker\s+project\s+sonnet\s+list_files, grep, read_file \(not here: NotebookRead, WebFet…\s+Use this agent when/);
    expect(listed).toMatch(/general-purpose\s+builtin\s+inherit\s+the session's\s+General-purpose agent/);
    expect(listed).toMatch(/explore\s+project\s+inherit\s+read_file\s+The project's own explorer\./);
    expect(listed).toContain(`Skipped:\n  ${project.path(".claude/agents/broken.md")}: no YAML frontmatter`);
  });

  test("the tools an agent gets: Claude Code's names mapped, explore read-only, none given = the parent's, task only when listed", async () => {
    const h = await agentsHost({}, []);
    const all = h.host.tools.list();
    const agent = (over: Partial<RegisteredAgent>) => ({ name: "a", description: "d", prompt: "", source: "s", plugin: "p", ...over }) as RegisteredAgent;
    expect(agentTools(agent({ tools: ["Read", "Bash", "mcp__gh__search", "WebSearch"] }), all)).toEqual({ tools: ["read_file", "run_command", "mcp__gh__search"], missing: ["WebSearch"] });
    expect(agentTools(h.host.agents.get("explore")!, all).tools.sort()).toEqual(["grep", "list_files", "read_file"]);
    const parents = agentTools(agent({ disallowedTools: ["Bash"] }), all).tools;
    expect(parents.sort()).toEqual(["edit_file", "grep", "list_files", "read_file", "write_file"]);
    expect(agentTools(agent({ tools: ["Read", "Task"] }), all).tools).toEqual(["read_file", "task"]);
    // What a deny rule takes away whole is never offered; a rule with a pattern leaves the tool (the gate judges each call).
    expect(agentTools(agent({ tools: ["Read", "Bash", "Write"] }), all, ["Bash", "Write(secrets/**)"]).tools).toEqual(["read_file", "write_file"]);
    // tool_search is the session's: a subagent's requests carry its tools in full.
    const withSearch = [...all, { ...all[0], name: "tool_search", risk: "read" as const, aliases: [] }];
    expect(agentTools(h.host.agents.get("explore")!, withSearch).tools).not.toContain("tool_search");
    expect(agentTools(agent({}), withSearch).tools).not.toContain("tool_search");
  });

  test("agent agents --json (the built CLI)", async () => {
    const project = tempProject({ ".claude/agents/lister.md": fixture("claude-style/lister.md") });
    const r = await runCli(["agents", "--json"], { cwd: project.dir, configHome: project.configHome, env: { AGENT_TRUST: "1" } });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.name).sort()).toEqual(["explore", "general-purpose", "lister"]);
    expect(rows.find((x) => x.name === "lister")).toMatchObject({ source: "project", model: "inherit", tools: ["read_file", "list_files"], path: project.path(".claude/agents/lister.md") });
  });
});
