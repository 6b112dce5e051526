/**
 * SKILL.md files as real repositories write them load where Claude Code loads them: a display name as
 * `name` (Anthropic's plugin-dev skills: "Agent Development"), a description past 1024 characters, a name
 * that differs from its folder, no name at all. Each is a warning in `agent skills` and `agent doctor`,
 * not a refusal; what cannot be loaded (no description, no usable name anywhere) is still refused.
 */
import { afterAll, expect, test } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempDir } from "../../helpers/project.js";
import { skillsProject } from "./_helpers.js";

afterAll(cleanupTemp);

const LONG = `This skill should be used when the user asks to "create an agent", "add an agent", "write a subagent". ${"It covers frontmatter, triggering, system prompts and examples in full detail. ".repeat(14)}`.trim();

function project() {
  return skillsProject({
    ".claude/skills/agent-development/SKILL.md": `---\nname: Agent Development\ndescription: Create agents for Claude Code plugins.\nversion: 0.1.0\n---\n\n# Agent Development\n`,
    ".claude/skills/long-one/SKILL.md": `---\nname: long-one\ndescription: ${LONG}\n---\n\nBody.\n`,
    ".claude/skills/folder-name/SKILL.md": `---\nname: other-name\ndescription: Named unlike its folder.\n---\n\nBody.\n`,
    ".claude/skills/nameless/SKILL.md": `---\ndescription: No name in the frontmatter.\n---\n\nBody.\n`,
    ".claude/skills/Bad_Folder/SKILL.md": `---\nname: Not An Id\ndescription: Neither name nor folder is an id.\n---\n\nBody.\n`,
    ".claude/skills/no-description/SKILL.md": `---\nname: no-description\n---\n\nBody.\n`,
  });
}

test("loaded with warnings where Claude Code loads them; refused only where nothing usable is left", async () => {
  expect(LONG.length).toBeGreaterThan(1024);
  const p = project();
  const r = await runCli(["skills", "--json"], { cwd: p.dir, configHome: p.configHome, env: { HOME: tempDir("agent-home-") } });
  expect(r.code).toBe(0);
  const rows = JSON.parse(r.stdout) as { name: string; state: string; description: string; problem?: string; warnings?: string[] }[];
  const row = (name: string) => rows.find((x) => x.name === name);
  expect(row("agent-development")).toMatchObject({ state: "listed", warnings: [expect.stringContaining('name "Agent Development" must be')] });
  expect(row("long-one")?.warnings).toEqual([expect.stringMatching(/description is \d+ characters; at most 1024 allowed \(cut to 1024/)]);
  expect(row("long-one")?.description).toHaveLength(1024);
  expect(row("other-name")?.warnings).toEqual(['name "other-name" differs from its folder "folder-name" (loaded as "other-name")']);
  expect(row("nameless")?.warnings).toEqual(['frontmatter has no name; loaded as "nameless", its folder\'s name']);
  expect(row("Bad_Folder")).toMatchObject({ state: "invalid", problem: expect.stringContaining('name "Not An Id" must be') });
  expect(row("no-description")).toMatchObject({ state: "invalid", problem: "frontmatter has no description" });

  const doctor = await runCli(["doctor"], { cwd: p.dir, configHome: p.configHome, env: { HOME: tempDir("agent-home-") } });
  expect(doctor.stdout).toContain(`agent-development/SKILL.md: name "Agent Development" must be`);
  expect(doctor.stdout).toContain(`folder-name/SKILL.md: name "other-name" differs from its folder`);
});

test("frontmatter YAML misreads (a value starting with @, a colon inside) is read as Claude Code reads it, with a warning", async () => {
  const { parseSkillFile } = await import("../../../kit/index.js");
  const text = "---\nname: swiftui-patterns\ndescription: @Observable state, views: composition and navigation\n---\n\nBody.\n";
  const r = await parseSkillFile("/x/swiftui-patterns/SKILL.md", text);
  expect(r.ok && r.skill.description).toBe("@Observable state, views: composition and navigation");
  expect(r.ok && r.skill.warnings).toEqual(["frontmatter is not valid YAML; values YAML misreads were read as plain text, as Claude Code does"]);
  // Served by an MCP server, the file is held to the letter.
  const strict = await parseSkillFile("skill://swiftui-patterns/SKILL.md", text, { expectedName: "swiftui-patterns" });
  expect(strict).toMatchObject({ ok: false, error: expect.stringContaining("frontmatter is not valid YAML") });
  // Broken beyond that: still refused, with the parser's reason.
  const broken = await parseSkillFile("/x/b/SKILL.md", "---\nname: b\ndescription: [unclosed\n  - x: : y\n---\n");
  expect(broken).toMatchObject({ ok: false, error: expect.stringContaining("frontmatter is not valid YAML") });
});
