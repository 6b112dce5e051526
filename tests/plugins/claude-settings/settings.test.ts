/**
 * Claude Code's settings files as config sources: which files, in which order (under agent-host's
 * own), how permission rules are translated, what is read and what is ignored, where each part came
 * from, and the switch that turns it all off.
 */
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { translateRule } from "../../../plugins/claude-settings/index.js";
import { loadConfig, prepareHost } from "./_helpers.js";
import { ConfigError } from "../../../kit/errors.js";
import { parsePermissionRule } from "../../../core/embed.js";
import { pathMatcher } from "../../../kit/rules/path-pattern.js";
import { cleanupTemp, tempDir, tempProject, writeFile } from "../../helpers/project.js";

afterAll(cleanupTemp);
const savedDir = process.env.CLAUDE_CONFIG_DIR;
afterEach(() => {
  process.env.CLAUDE_CONFIG_DIR = savedDir;
});

describe("translating Claude Code's permission rules", () => {
  const root = "/work/app";
  const home = "/home/me";
  const t = (rule: string, settingsRoot = root) => translateRule(rule, settingsRoot, root, home);

  test.each([
    ["Bash", ["Bash"]],
    ["Bash(npm test:*)", ["Bash(npm test:*)"]],
    ["Bash(npm run test *)", ["Bash(npm run test *)"]],
    ["WebFetch(domain:example.com)", ["WebFetch(domain:example.com)"]],
    ["mcp__github__create_issue", ["mcp__github__create_issue"]],
    ["mcp__github", ["mcp__github__*"]],
    ["mcp__brave_search", ["mcp__brave_search__*"]],
    ["Read(./.env)", ["Read(/.env)", "Grep(/.env)", "Glob(/.env)"]],
    ["Read(secrets/**)", ["Read(secrets/**)", "Grep(secrets/**)", "Glob(secrets/**)"]],
    ["Edit(/src/**/*.ts)", ["Edit(/src/**/*.ts)", "Write(/src/**/*.ts)"]],
    ["Write(./dist/)", ["Write(/dist/)"]],
    ["Read(//work/app/docs/**)", ["Read(/docs/**)", "Grep(/docs/**)", "Glob(/docs/**)"]],
    ["Read(//etc/passwd)", ["Read(//etc/passwd)", "Grep(//etc/passwd)", "Glob(//etc/passwd)"]],
    ["Read(~/.ssh/**)", ["Read(//home/me/.ssh/**)", "Grep(//home/me/.ssh/**)", "Glob(//home/me/.ssh/**)"]],
    ["MultiEdit(./a.ts)", ["MultiEdit(/a.ts)"]],
  ])("%s → %j", (rule, expected) => {
    expect(t(rule)).toEqual(expected);
  });

  test("in the user's file, /path is from the folder that holds .claude (the home folder)", () => {
    expect(t("Read(/notes/**)", home)).toEqual(["Read(//home/me/notes/**)", "Grep(//home/me/notes/**)", "Glob(//home/me/notes/**)"]);
  });

  test("an absolute path rule matches absolute subjects (outside the project) and never relative ones", () => {
    const m = pathMatcher("//home/me/.ssh/**");
    expect(m("/home/me/.ssh/id_rsa")).toBe(true);
    expect(m("/home/me/.ssh")).toBe(true);
    expect(m("home/me/.ssh/id_rsa")).toBe(false);
    expect(m("/home/me/other")).toBe(false);
    expect(parsePermissionRule("Read(//etc/**)").pathPattern!("/etc/passwd")).toBe(true);
  });
});

describe("the files and their order", () => {
  function project() {
    const p = tempProject({
      ".claude/settings.json": {
        permissions: { allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"], defaultMode: "acceptEdits" },
        env: { FROM_PROJECT: "p", SHARED: "project" },
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "project.sh" }] }] },
        model: "claude-sonnet-4-5",
        statusLine: { type: "command", command: "x" },
      },
      ".claude/settings.local.json": { permissions: { allow: ["Bash(make:*)"] }, env: { SHARED: "local" }, hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "local.sh" }] }] } },
    });
    const claudeHome = tempDir("claude-home-");
    writeFile(path.join(claudeHome, "settings.json"), { permissions: { deny: ["Bash(rm:*)"], defaultMode: "plan" }, env: { SHARED: "user" } });
    process.env.CLAUDE_CONFIG_DIR = claudeHome;
    const userDir = tempDir("agent-user-");
    return { p, claudeHome, userDir };
  }

  test("user, project, then local settings, all under agent-host's own files: rules add up, ours win for the rest", async () => {
    const { p, claudeHome, userDir } = project();
    writeFile(path.join(userDir, "config.json"), { permissions: { mode: "default" } });
    p.write(".agentrc.json", { permissions: { allow: ["read_file"] }, env: { SHARED: "agent" } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: userDir });
    expect(loaded.files).toEqual([path.join(claudeHome, "settings.json"), p.path(".claude/settings.json"), p.path(".claude/settings.local.json"), path.join(userDir, "config.json"), p.path(".agentrc.json")]);
    expect(loaded.config.permissions).toEqual({
      mode: "default",
      deny: ["Bash(rm:*)", "Read(/.env)", "Grep(/.env)", "Glob(/.env)"],
      allow: ["Bash(npm test:*)", "Bash(make:*)", "read_file"],
    });
    expect(loaded.config.env).toEqual({ FROM_PROJECT: "p", SHARED: "agent" });
    // Hooks are the hooks plugin's section: every file's groups, in order.
    expect(loaded.sections.filter((s) => s.key === "hooks").map((s) => s.file)).toEqual([p.path(".claude/settings.json"), p.path(".claude/settings.local.json")]);
  });

  test("where each part came from, with the rule as written when it was translated, and what was ignored", async () => {
    const { p } = project();
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false });
    const file = p.path(".claude/settings.json");
    expect(loaded.origins.filter((o) => o.file === file)).toEqual([
      { key: "permissions.allow", file, value: "Bash(npm test:*)" },
      { key: "permissions.deny", file, value: "Read(/.env)", written: "Read(./.env)" },
      { key: "permissions.deny", file, value: "Grep(/.env)", written: "Read(./.env)" },
      { key: "permissions.deny", file, value: "Glob(/.env)", written: "Read(./.env)" },
      { key: "permissions.mode", file, value: "acceptEdits", written: "defaultMode: acceptEdits" },
      { key: "env.FROM_PROJECT", file },
      { key: "env.SHARED", file },
      { key: "hooks.PreToolUse", file },
      { key: "model", file, note: "ignored: it means nothing to agent-host" },
      { key: "statusLine", file, note: "ignored: it means nothing to agent-host" },
    ]);
    // Without user config, ~/.claude is not read either.
    expect(loaded.files).toEqual([file, p.path(".claude/settings.local.json")]);
    expect(loaded.config.permissions?.mode).toBe("acceptEdits");
  });

  test("compat.claude: false in one of agent-host's files (or createHost's config) ignores them all", async () => {
    const { p, userDir } = project();
    p.write(".agentrc.json", { compat: { claude: false } });
    const off = await loadConfig({ cwd: p.dir, userConfigDir: userDir });
    expect(off.files).toEqual([p.path(".agentrc.json")]);
    expect(off.config.permissions).toBeUndefined();
    const q = project();
    const viaOptions = await loadConfig({ cwd: q.p.dir, userConfigDir: false, overrides: { compat: { claude: false } } });
    expect(viaOptions.files).toEqual([]);
  });

  test("defaultMode bypassPermissions (or dontAsk) is not applied: a warning says why", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { defaultMode: "bypassPermissions" } } });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false });
    expect(loaded.config.permissions).toBeUndefined();
    expect(loaded.warnings).toEqual([
      `${p.path(".claude/settings.json")}: permissions.defaultMode "bypassPermissions" was not applied: bypass mode is only ever chosen in agent-host's own config or with --permission-mode bypass.`,
    ]);
    const prepared = await prepareHost({ cwd: p.dir, userConfigDir: false });
    expect(prepared.problems).toEqual([expect.objectContaining({ kind: "config", level: "warning", message: loaded.warnings[0] })]);
  });

  test("a broken file or a malformed rule is a config error naming the file and the key", async () => {
    const bad = tempProject({ ".claude/settings.json": '{ "permissions": { "deny": ["Bash(rm:*))"] } }' });
    await expect(loadConfig({ cwd: bad.dir, userConfigDir: false })).rejects.toThrow(ConfigError);
    await expect(loadConfig({ cwd: bad.dir, userConfigDir: false })).rejects.toThrow(/settings\.json[\s\S]*permissions\.deny\[0\]: invalid rule "Bash\(rm:\*\)\)"/);
    const syntax = tempProject({ ".claude/settings.json": '{ "env": { "A": 1, } }' });
    await expect(loadConfig({ cwd: syntax.dir, userConfigDir: false })).rejects.toThrow(/settings\.json[\s\S]*line 1/);
    const env = tempProject({ ".claude/settings.json": { env: { "NOT A NAME": "x" } } });
    await expect(loadConfig({ cwd: env.dir, userConfigDir: false })).rejects.toThrow(/env\.NOT A NAME: expected an environment variable name/);
  });

  test("hooks with no plugin to run them are only reported (nothing breaks for an embedder without the hooks plugin)", async () => {
    const p = tempProject({ ".claude/settings.json": { hooks: { Stop: [] } } });
    const prepared = await prepareHost({ cwd: p.dir, userConfigDir: false });
    expect(prepared.problems).toEqual([expect.objectContaining({ level: "warning", message: `${p.path(".claude/settings.json")}: key "hooks" is not used by any loaded plugin; ignored` })]);
  });
});
