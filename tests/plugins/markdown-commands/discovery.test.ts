/** Where Markdown commands come from, what they are called, which one wins, and what is reported. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { md, mdHost, useMdHosts } from "./_helpers.js";

useMdHosts();

test("every location is read, with precedence, and every clash is reported with both paths", async () => {
  const t = await mdHost(
    {
      ".agent/commands/review.md": md("agent review", { description: "Review (agent)" }),
      ".claude/commands/review.md": md("claude review"),
      ".claude/commands/deploy.md": md("project deploy"),
      ".claude/commands/help.md": md("not the real help"),
    },
    {
      userFiles: { "commands/review.md": md("user review"), "commands/mine.md": md("user mine") },
      homeFiles: { ".claude/commands/review.md": md("home review"), ".claude/commands/mine.md": md("home mine"), ".claude/commands/home-only.md": md("from home") },
      // Another plugin's command of the same name comes after the Markdown files.
      plugins: [{ name: "other", commands: [{ name: "deploy", description: "other deploy", run: () => "other" }] }],
    },
  );
  const byName = new Map(t.host.commands.list().map((c) => [c.name, c]));
  expect(byName.get("review")).toMatchObject({ source: "project:.agent/commands", plugin: "markdown-commands", description: "Review (agent)" });
  expect(byName.get("deploy")).toMatchObject({ source: "project:.claude/commands", plugin: "markdown-commands" });
  expect(byName.get("mine")).toMatchObject({ source: "user:config" });
  expect(byName.get("home-only")).toMatchObject({ source: "user:~/.claude/commands", description: "from home" });
  expect(byName.get("help")).toMatchObject({ plugin: "commands" });
  expect((await t.run("/review")).prompt).toBe("agent review");
  expect((await t.run("/deploy")).prompt).toBe("project deploy");
  expect((await t.run("/mine")).prompt).toBe("user mine");

  const messages = t.host.problems.map((p) => p.message);
  const p = (rel: string) => t.project.path(rel);
  const u = (rel: string) => path.join(t.project.configHome, rel);
  const h = (rel: string) => path.join(t.home, rel);
  for (const loser of [p(".claude/commands/review.md"), u("commands/review.md"), h(".claude/commands/review.md")]) {
    expect(messages).toContainEqual(expect.stringContaining(`Command /review: ${p(".agent/commands/review.md")} (project:.agent/commands) is used; ${loser}`));
  }
  expect(messages).toContainEqual(expect.stringContaining(`Command /mine: ${u("commands/mine.md")} (user:config) is used; ${h(".claude/commands/mine.md")} (user:~/.claude/commands) is shadowed`));
  // Clashes with a built-in and with a later plugin are refused by the registration gate, which says so.
  expect(messages).toContainEqual(expect.stringMatching(/markdown-commands.*"help" rejected: duplicate command name: already registered by commands/));
  expect(messages).toContainEqual(expect.stringMatching(/other.*"deploy" rejected: duplicate command name: already registered by project:\.claude\/commands/));
});

test("a subfolder namespaces the command", async () => {
  const t = await mdHost({ ".agent/commands/git/commit.md": md("commit it"), ".claude/commands/a/b/c.md": md("deep") });
  expect(t.host.commands.get("git:commit")).toMatchObject({ source: "project:.agent/commands" });
  expect(t.host.commands.get("a:b:c")).toBeDefined();
  expect((await t.run("/git:commit")).prompt).toBe("commit it");
});

test("frontmatter gives description and hint; without one the first line is the description", async () => {
  const long = "x".repeat(150);
  const t = await mdHost({
    ".agent/commands/full.md": md("Body $ARGUMENTS", { description: "Does things", "argument-hint": "<file> [--fix]", "unknown-field": "ignored", model: "some-model" }),
    ".claude/commands/plain.md": "\n\n# Fix the bug\n\nMore text.\n",
    ".claude/commands/long.md": `${long}\n`,
    // Claude Code's own examples are not strict YAML; they are read the way Claude Code reads them.
    ".claude/commands/hint.md": md("Body", { "argument-hint": "[pr-number] [priority] [assignee]", description: "Review a PR: carefully" }),
    ".claude/commands/list-hint.md": md("Body", { "argument-hint": "[message]" }),
  });
  expect(t.host.commands.get("full")).toMatchObject({ description: "Does things", argumentHint: "<file> [--fix]" });
  expect(t.host.commands.get("plain")).toMatchObject({ description: "Fix the bug" });
  expect(t.host.commands.get("plain")?.argumentHint).toBeUndefined();
  expect(t.host.commands.get("long")?.description).toBe(`${"x".repeat(99)}…`);
  expect(t.host.commands.get("hint")).toMatchObject({ argumentHint: "[pr-number] [priority] [assignee]", description: "Review a PR: carefully" });
  expect(t.host.commands.get("list-hint")).toMatchObject({ argumentHint: "[message]" });
  expect((await t.run("/plain")).prompt).toBe("# Fix the bug\n\nMore text.");
  expect(t.host.problems).toEqual([]);
});

test("a bad file is reported with its path and skipped; the others load", async () => {
  const t = await mdHost({
    ".agent/commands/good.md": md("fine"),
    ".agent/commands/broken.md": '---\ndescription: "unclosed\n---\nbody\n',
    ".agent/commands/list.md": "---\n- a\n- b\n---\nbody\n",
    ".claude/commands/has space.md": md("bad name"),
    ".claude/commands/ok.md": md("also fine"),
  });
  expect(t.host.commands.get("good")).toBeDefined();
  expect(t.host.commands.get("ok")).toBeDefined();
  for (const name of ["broken", "list", "has space"]) expect(t.host.commands.get(name)).toBeUndefined();
  const problems = t.host.problems.map((p) => ({ name: p.name, message: p.message }));
  expect(problems).toContainEqual({
    name: t.project.path(".agent/commands/broken.md"),
    message: expect.stringMatching(/^Command file .*broken\.md skipped: frontmatter is not valid YAML: unexpected end of the stream within a double quoted scalar/),
  });
  expect(problems).toContainEqual({ name: t.project.path(".agent/commands/list.md"), message: expect.stringContaining("must be a YAML mapping") });
  expect(problems).toContainEqual({ name: t.project.path(".claude/commands/has space.md"), message: expect.stringContaining('"has space" is not a valid command name') });
  expect(t.host.problems).toHaveLength(3);
});

test("an edited file takes effect on its next run", async () => {
  const t = await mdHost({ ".agent/commands/edit.md": md("first") });
  expect((await t.run("/edit")).prompt).toBe("first");
  writeFileSync(t.project.path(".agent/commands/edit.md"), md("second"));
  expect((await t.run("/edit")).prompt).toBe("second");
  writeFileSync(t.project.path(".agent/commands/edit.md"), '---\ndescription: "broken\n---\n');
  expect((await t.run("/edit")).output).toMatch(/^Command \/edit failed: .*edit\.md frontmatter is not valid YAML/);
});

test("no folders, no commands, no problems; without a user config folder it is not read", async () => {
  const t = await mdHost({}, { userConfigDir: false, userFiles: { "commands/x.md": md("x") } });
  expect(t.host.commands.list().filter((c) => c.plugin === "markdown-commands")).toEqual([]);
  expect(t.host.problems).toEqual([]);
});
