/**
 * Project instructions (issue 11): `AGENTS.md` then `CLAUDE.md`, the user's own first, then the project
 * root, then every folder down to the working directory; Claude Code's `@path` imports, contained like
 * the tools are; bounded; in the system prompt of every request.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { builtinPlugins } from "../../../cli/builtins.js";
import { createHost } from "../../helpers/host.js";
import { systemPrompt } from "../../../core/embed.js";
import { createWorkspace } from "../../../core/host/workspace.js";
import { loadInstructions } from "../../../kit/index.js";
import { cleanupTemp, tempDir, tempProject } from "../../helpers/project.js";

afterAll(cleanupTemp);

test("order: user, root (AGENTS.md before CLAUDE.md), then each folder down to cwd; a symlinked twin read once", () => {
  const p = tempProject({
    "AGENTS.md": "root agents",
    "CLAUDE.md": "root claude",
    "src/AGENTS.md": "src agents",
    "src/lib/CLAUDE.md": "lib claude",
    "src/lib/deep/file.ts": "x",
    "other/AGENTS.md": "not on the way",
  });
  p.symlink("src/CLAUDE.md", "AGENTS.md");
  p.write(path.relative(p.dir, path.join(p.configHome, "AGENTS.md")), "user agents");
  const r = loadInstructions({ root: p.dir, cwd: path.join(p.dir, "src/lib/deep"), userConfigDir: p.configHome, workspace: createWorkspace(p.dir) });
  expect(r.files.map((f) => [f.scope, f.label, f.bytes])).toEqual([
    ["user", expect.stringMatching(/AGENTS\.md$/), 11],
    ["project", "AGENTS.md", 11],
    ["project", "CLAUDE.md", 11],
    ["project", path.join("src", "AGENTS.md"), 10],
    ["project", path.join("src", "lib", "CLAUDE.md"), 10],
  ]);
  expect(r.text.indexOf("user agents")).toBeLessThan(r.text.indexOf("root agents"));
  expect(r.text.indexOf("root claude")).toBeLessThan(r.text.indexOf("src agents"));
  expect(r.text).toContain(`# Project instructions (${path.join("src", "lib", "CLAUDE.md")})\n\nlib claude`);
  expect(r.text).not.toContain("not on the way");
});

test("@path imports: relative to the file, followed once, never outside the workspace (symlinks too), not inside code", () => {
  const outside = tempDir("agent-outside-");
  const p = tempProject({
    "AGENTS.md": "See @docs/style.md and @../escape.md.\n```\n@docs/in-code.md\n```\nAlso `@docs/inline.md`.",
    "docs/style.md": "Use tabs. @./more.md @../AGENTS.md",
    "docs/more.md": "More rules.",
    "docs/in-code.md": "never",
    "docs/inline.md": "never",
  });
  p.write("../escape.md", "secret outside");
  p.symlink("docs/linked.md", path.join(outside, "x.md"));
  p.write("CLAUDE.md", "@docs/linked.md");
  const r = loadInstructions({ root: p.dir, cwd: p.dir, workspace: createWorkspace(p.dir) });
  expect(r.files.map((f) => [f.label, f.importedBy])).toEqual([
    ["AGENTS.md", undefined],
    [path.join("docs", "style.md"), "AGENTS.md"],
    [path.join("docs", "more.md"), path.join("docs", "style.md")],
    ["CLAUDE.md", undefined],
  ]);
  expect(r.text).toContain(`# Imported by AGENTS.md (${path.join("docs", "style.md")})\n\nUse tabs.`);
  expect(r.text).not.toMatch(/secret outside|never/);
  expect(r.skipped).toEqual(expect.arrayContaining([expect.stringMatching(/^@\.\.\/escape\.md \(imported by AGENTS\.md\): outside the workspace/), expect.stringMatching(/^@docs\/linked\.md \(imported by CLAUDE\.md\): outside the workspace/)]));
});

test("bounded: a file over 64 KiB is cut, saying so", () => {
  const p = tempProject({ "AGENTS.md": "x".repeat(70 * 1024) });
  const r = loadInstructions({ root: p.dir, cwd: p.dir, workspace: createWorkspace(p.dir) });
  expect(r.files[0]).toMatchObject({ truncated: true, bytes: 70 * 1024 });
  expect(r.text).toMatch(/\[AGENTS\.md truncated: 6144 of 71680 bytes cut\]$/);
});

test("the system prompt of a host started in a nested folder carries the nested and user instructions", async () => {
  const p = tempProject({ "AGENTS.md": "root rule", "pkg/a/AGENTS.md": "nested rule" });
  p.write(path.relative(p.dir, path.join(p.configHome, "AGENTS.md")), "my own rule");
  // Instructions are a built-in plugin's: the host gets them with the built-ins, as the agent command's does.
  const host = await createHost({ cwd: path.join(p.dir, "pkg/a"), userConfigDir: p.configHome, builtins: builtinPlugins.filter((b) => b.name === "instructions") });
  try {
    expect(host.workspace.root).toBe(p.dir);
    const system = await systemPrompt(host, undefined, { userConfigDir: p.configHome });
    expect(system).toMatch(/# User instructions \([^)]*AGENTS\.md\)\n\nmy own rule[\s\S]*# Project instructions \(AGENTS\.md\)\n\nroot rule[\s\S]*nested rule/);
  } finally {
    await host.close();
  }
});

test("Claude Code's other memory files: .claude/CLAUDE.md, CLAUDE.local.md (last), and ~/.claude/CLAUDE.md with imports inside ~/.claude only", () => {
  const saved = process.env.CLAUDE_CONFIG_DIR;
  const claudeHome = tempDir("claude-home-");
  process.env.CLAUDE_CONFIG_DIR = claudeHome;
  try {
    const p = tempProject({
      "CLAUDE.md": "root claude",
      ".claude/CLAUDE.md": "dot-claude memory",
      "CLAUDE.local.md": "my local notes",
      "src/.claude/CLAUDE.md": "src dot-claude",
    });
    writeFileSync(path.join(claudeHome, "CLAUDE.md"), "claude user memory\n@rules.md\n@../escape.md");
    writeFileSync(path.join(claudeHome, "rules.md"), "user rules");
    writeFileSync(path.join(claudeHome, "..", "escape.md"), "must not be read");
    const r = loadInstructions({ root: p.dir, cwd: path.join(p.dir, "src"), userConfigDir: p.configHome, workspace: createWorkspace(p.dir) });
    expect(r.files.map((f) => [f.scope, f.label])).toEqual([
      ["user", expect.stringMatching(/CLAUDE\.md$/)],
      ["user", expect.stringMatching(/rules\.md$/)],
      ["project", "CLAUDE.md"],
      ["project", path.join(".claude", "CLAUDE.md")],
      ["project", "CLAUDE.local.md"],
      ["project", path.join("src", ".claude", "CLAUDE.md")],
    ]);
    expect(r.text).not.toContain("must not be read");
    expect(r.skipped).toEqual([expect.stringMatching(/@\.\.\/escape\.md .*outside the user config folder/)]);
    // Without user config (tests, createHost({ userConfigDir: false })), ~/.claude is not read either.
    const none = loadInstructions({ root: p.dir, cwd: p.dir, workspace: createWorkspace(p.dir) });
    expect(none.text).not.toContain("claude user memory");
  } finally {
    process.env.CLAUDE_CONFIG_DIR = saved;
  }
});
