/**
 * `.agent/settings.local.json`: read by the config loader over the project config (so "always for this
 * project" rules and local MCP servers apply), written with `.agent/.gitignore` listing it; and `model`
 * aliases checked once every file is merged.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinPlugins } from "../../cli/builtins.js";
import { loadConfig } from "../../core/config/config.js";
import { createHost } from "../../core/index.js";
import { ConfigError } from "../../kit/errors.js";
import { addLocalAllowRules, localSettingsPath } from "../../kit/fs/local-settings.js";
import { AuditLog } from "../../core/gate/audit.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

describe("local settings", () => {
  it("merge over the project config, rule lists added up, and are listed with the files", async () => {
    const p = tempProject({
      ".agentrc.json": { maxTurns: 5, permissions: { allow: ["read_file"] } },
      ".agent/settings.local.json": { maxTurns: 9, permissions: { allow: ["run_command(npm test)"] } },
    });
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false });
    expect(loaded.config.maxTurns).toBe(9);
    expect(loaded.config.permissions?.allow).toEqual(["read_file", "run_command(npm test)"]);
    expect(loaded.files).toEqual([p.path(".agentrc.json"), localSettingsPath(p.dir)]);
    expect(loaded.origins).toContainEqual({ key: "permissions.allow", file: localSettingsPath(p.dir), value: "run_command(npm test)" });
  });

  it("written by addLocalAllowRules (each rule once, other keys kept), with .agent/.gitignore listing the file", async () => {
    const p = tempProject({ ".agent/settings.local.json": { mcpServers: { x: { command: "x" } } }, ".agent/.gitignore": "history" });
    expect(addLocalAllowRules(p.dir, ["edit_file(/a.ts)"]).added).toEqual(["edit_file(/a.ts)"]);
    expect(addLocalAllowRules(p.dir, ["edit_file(/a.ts)", "grep"]).added).toEqual(["grep"]);
    expect(JSON.parse(readFileSync(localSettingsPath(p.dir), "utf8"))).toEqual({ mcpServers: { x: { command: "x" } }, permissions: { allow: ["edit_file(/a.ts)", "grep"] } });
    expect(readFileSync(p.path(".agent/.gitignore"), "utf8")).toBe("history\nsettings.local.json\nsessions/\naudit.jsonl\nlogs/\ncache/\ntranscripts/\n");
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false });
    expect(loaded.config.permissions?.allow).toEqual(["edit_file(/a.ts)", "grep"]);
  });

  it("an invalid local file is a config error naming it", async () => {
    const p = tempProject({ ".agent/settings.local.json": { permissions: { allow: ["Bash(rm:*"] } } });
    const err = await loadConfig({ cwd: p.dir, userConfigDir: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(localSettingsPath(p.dir));
  });
});

describe("model aliases in config", () => {
  it("a model alias is fine; an unknown one is an error naming the file and the closest alias", async () => {
    const ok = tempProject({ ".agentrc.json": { model: "fast", modelAliases: { fast: "openai:gpt-5.1-mini" } } });
    expect((await loadConfig({ cwd: ok.dir, userConfigDir: false })).config.model).toBe("fast");
    // Aliases are the providers' (ModelProvider.aliases): an unknown one is refused once they are registered.
    const bad = tempProject({ ".agentrc.json": { model: "sonet" } });
    const providers = builtinPlugins.filter((b) => b.name === "openai" || b.name === "anthropic");
    const err = await createHost({ cwd: bad.dir, userConfigDir: false, builtins: providers }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(bad.path(".agentrc.json"));
    expect((err as Error).message).toContain('model: "sonet" is neither provider:model (e.g. anthropic:claude-sonnet-5-5) nor a model alias');
    expect((err as Error).message).toContain('did you mean "sonnet"?');
  });

  it("the first audit record in .agent/ lists every machine-local entry in .agent/.gitignore; git then ignores them, not the project's skills", () => {
    const p = tempProject({ ".agent/skills/mine/SKILL.md": "---\nname: mine\ndescription: d\n---\nbody\n" });
    const log = new AuditLog(p.path(".agent/audit.jsonl"), "s1");
    log.write({ kind: "call", source: "t", name: "x", outcome: "ok" });
    log.close();
    const listed = readFileSync(p.path(".agent/.gitignore"), "utf8").split("\n");
    expect(listed).toEqual(expect.arrayContaining(["audit.jsonl", "settings.local.json", "sessions/", "logs/", "cache/", "transcripts/"]));
    for (const f of ["logs/mcp-a.log", "cache/mcp/a.json", "sessions/s1.jsonl", "transcripts/s1.jsonl", "settings.local.json"]) {
      mkdirSync(path.dirname(p.path(`.agent/${f}`)), { recursive: true });
      writeFileSync(p.path(`.agent/${f}`), "{}");
    }
    execFileSync("git", ["init", "-q"], { cwd: p.dir });
    const untracked = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: p.dir, encoding: "utf8" });
    expect(untracked).toContain(".agent/skills/mine/SKILL.md");
    expect(untracked).toContain(".agent/.gitignore");
    expect(untracked).not.toMatch(/audit\.jsonl|logs\/|cache\/|sessions\/|transcripts\/|settings\.local/);
  });
});
