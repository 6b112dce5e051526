/**
 * Marketplaces and installs through the built CLI, as a user runs them: a marketplace added from a
 * folder and from a git URL (a local bare repository, cloned with git), plugins installed by name,
 * recorded in the lock with a sha256 each; a copy whose files changed is not loaded until updated; an
 * update that adds a hook asks again (refused headless without --yes); enable/disable per scope;
 * uninstall; removing a marketplace uninstalls its plugins.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempProject, type TempProject } from "../../helpers/project.js";
import { MARKETPLACE } from "./_helpers.js";

vi.setConfig({ testTimeout: 120_000 });
afterAll(cleanupTemp);

const agent = (project: TempProject, ...args: string[]) => runCli(args, { cwd: project.dir, configHome: project.configHome });
const lockOf = (project: TempProject) => JSON.parse(readFileSync(path.join(project.configHome, "plugins", "lock.json"), "utf8"));

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, stdio: "pipe" });
}

/** The fixture marketplace as a bare git repository (and the working copy it was pushed from). */
function bareMarketplace(project: TempProject): { bare: string; work: string } {
  const work = path.join(path.dirname(project.dir), "market-work");
  const bare = path.join(path.dirname(project.dir), "market.git");
  cpSync(MARKETPLACE, work, { recursive: true });
  git(work, "init", "-q");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "marketplace");
  git(path.dirname(project.dir), "clone", "-q", "--bare", work, bare);
  return { bare, work };
}

describe("a marketplace from a folder", () => {
  test("install by name: the lock has a sha256 per plugin; commands and servers work; a changed copy is not loaded until updated", async () => {
    const project = tempProject({ "notes.txt": "hi\n" });
    const added = await agent(project, "plugin", "marketplace", "add", MARKETPLACE);
    expect(added.stdout).toContain("Added marketplace fixture-market (3 plugin(s))");
    const install = await agent(project, "plugin", "install", "commit-tools@fixture-market");
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('PreToolUse(Read): node "${CLAUDE_PLUGIN_ROOT}/hooks/record.mjs"');
    expect(install.stdout).toContain("agents (not supported yet: subagents): reviewer");
    expect((await agent(project, "plugin", "install", "server-tools@fixture-market")).code).toBe(0);

    const lock = lockOf(project);
    expect(Object.keys(lock.plugins).sort()).toEqual(["commit-tools@fixture-market", "server-tools@fixture-market"]);
    for (const e of Object.values<any>(lock.plugins)) expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
    const listed = JSON.parse((await agent(project, "plugin", "list", "--json")).stdout);
    expect(listed.plugins.map((p: any) => [p.id, p.sha256, p.status])).toEqual(Object.values<any>(lock.plugins).map((e) => [e.id, e.sha256, "ok"]));

    const commands = JSON.parse((await agent(project, "commands", "--json")).stdout).map((c: any) => c.name);
    expect(commands).toContain("commit-tools:commit");
    const sum = await agent(project, "--permission-mode", "bypass", "call", "mcp__plugin_server-tools_calc__add", '{"a":2,"b":40}');
    expect(sum.stdout.trim()).toBe("42");

    // Someone edits the installed copy: it no longer loads, and says why.
    const copy = lock.plugins["commit-tools@fixture-market"].path;
    appendFileSync(path.join(copy, "commands", "commit.md"), "\nAlso push.\n");
    const after = JSON.parse((await agent(project, "plugins", "--json")).stdout).find((p: any) => p.from === copy);
    expect(after.status).toBe("failed");
    expect(after.error).toContain("its files changed since install");
    expect(after.error).toContain("agent plugin update commit-tools@fixture-market");
    expect(JSON.parse((await agent(project, "commands", "--json")).stdout).map((c: any) => c.name)).not.toContain("commit-tools:commit");

    const update = await agent(project, "plugin", "update", "commit-tools@fixture-market");
    expect(update.stdout).toContain("Updated commit-tools@fixture-market");
    expect(lockOf(project).plugins["commit-tools@fixture-market"].sha256).toBe(lock.plugins["commit-tools@fixture-market"].sha256);
    expect(JSON.parse((await agent(project, "commands", "--json")).stdout).map((c: any) => c.name)).toContain("commit-tools:commit");
  });

  test("enable / disable for the user and for the project (.claude/settings.json enabledPlugins); uninstall; unknown names are usage errors", async () => {
    const project = tempProject();
    await agent(project, "plugin", "marketplace", "add", MARKETPLACE);
    await agent(project, "plugin", "install", "picked-skills@fixture-market");
    const skills = async () => JSON.parse((await agent(project, "skills", "--json")).stdout).map((s: any) => s.name);
    expect(await skills()).toContain("greeting");
    expect(await skills()).not.toContain("farewell");
    await agent(project, "plugin", "disable", "picked-skills@fixture-market");
    expect(await skills()).not.toContain("greeting");
    const enable = await agent(project, "plugin", "enable", "picked-skills@fixture-market", "-s", "project");
    expect(enable.stdout).toContain(path.join(".claude", "settings.json"));
    expect(JSON.parse(readFileSync(project.path(".claude/settings.json"), "utf8")).enabledPlugins).toEqual({ "picked-skills@fixture-market": true });
    expect(await skills()).toContain("greeting");
    const nope = await agent(project, "plugin", "install", "nothing@fixture-market");
    expect(nope.code).toBe(2);
    expect(nope.stderr).toContain("marketplace fixture-market has no plugin nothing (it has: commit-tools, server-tools, picked-skills)");
    const remove = await agent(project, "plugin", "uninstall", "picked-skills@fixture-market");
    expect(remove.code).toBe(0);
    expect(lockOf(project).plugins).toEqual({});
    expect(await skills()).not.toContain("greeting");
  });

  test("a project's enabledPlugins of a plugin not installed and its extraKnownMarketplaces are offered, once the folder is trusted", async () => {
    const project = tempProject({
      ".claude/settings.json": { enabledPlugins: { "commit-tools@team-market": true }, extraKnownMarketplaces: { "team-market": { source: { source: "github", repo: "acme/team-market" } } } },
    });
    const listed = JSON.parse((await agent(project, "plugin", "list", "--json")).stdout);
    expect(listed.offers).toEqual([
      "this project enables commit-tools@team-market, not installed: agent plugin install commit-tools@team-market",
      `${project.path(".claude/settings.json")} names marketplace team-market: agent plugin marketplace add acme/team-market`,
    ]);
    const untrusted = await runCli(["plugin", "list", "--json"], { cwd: project.dir, configHome: project.configHome, env: { AGENT_TRUST: undefined } });
    expect(JSON.parse(untrusted.stdout).offers).toEqual([]);
  });
});

describe("a marketplace from a git URL (a local bare repository)", () => {
  test("cloned with git; install by name; an update that adds a hook is refused headless without --yes, taken with it", async () => {
    const project = tempProject();
    const { bare, work } = bareMarketplace(project);
    const added = await agent(project, "plugin", "marketplace", "add", `file://${bare}`);
    expect(added.code).toBe(0);
    expect(existsSync(path.join(project.configHome, "plugins", "marketplaces", "fixture-market", ".claude-plugin", "marketplace.json"))).toBe(true);
    expect((await agent(project, "plugin", "install", "server-tools@fixture-market")).code).toBe(0);
    const before = lockOf(project).plugins["server-tools@fixture-market"];
    expect(before.servers).toEqual(["plugin_server-tools_calc: node ${CLAUDE_PLUGIN_ROOT}/server.mjs"]);

    // The publisher adds a hook and pushes.
    const plugin = path.join(work, "plugins", "server-tools");
    writeFileSync(path.join(plugin, "hooks.json"), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "echo started" }] }] } }));
    const manifest = JSON.parse(readFileSync(path.join(plugin, ".claude-plugin", "plugin.json"), "utf8"));
    writeFileSync(path.join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ ...manifest, version: "0.3.0", hooks: "./hooks.json" }));
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "a hook");
    git(work, "push", "-q", bare, "HEAD:main");

    const refused = await agent(project, "plugin", "update", "server-tools@fixture-market");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("hook SessionStart: echo started");
    expect(refused.stderr).toContain("--yes");
    expect(lockOf(project).plugins["server-tools@fixture-market"].sha256).toBe(before.sha256);

    const taken = await agent(project, "plugin", "update", "server-tools@fixture-market", "--yes");
    expect(taken.stdout).toContain("Updated server-tools@fixture-market to 0.3.0");
    const after = lockOf(project).plugins["server-tools@fixture-market"];
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.hooks).toEqual(["SessionStart: echo started"]);
    expect(existsSync(before.path)).toBe(false);

    const removed = await agent(project, "plugin", "marketplace", "remove", "fixture-market");
    expect(removed.stdout).toContain("Uninstalled server-tools@fixture-market.");
    expect(lockOf(project).plugins).toEqual({});
    expect(existsSync(path.join(project.configHome, "plugins", "marketplaces", "fixture-market"))).toBe(false);

    // The bare repository named by its path is a git source too: cloned, not read in place.
    const again = await agent(project, "plugin", "marketplace", "add", bare);
    expect(again.stdout).toContain(`Added marketplace fixture-market (3 plugin(s)) from ${bare}.`);
    const known = JSON.parse(readFileSync(path.join(project.configHome, "plugins", "marketplaces.json"), "utf8"));
    expect(known["fixture-market"].source).toEqual({ source: "git", url: bare });
  });

  test("a marketplace whose plugin name could leave the cache is refused; a source that is neither folder nor git is a usage error", async () => {
    const project = tempProject({ "evil/.claude-plugin/marketplace.json": { name: "evil", owner: { name: "x" }, plugins: [{ name: "../../escape", source: "./" }] } });
    const evil = await agent(project, "plugin", "marketplace", "add", project.path("evil"));
    expect(evil.code).toBe(2);
    expect(evil.stderr).toContain('every plugin needs a "name" (letters, digits, _ . -)');
    const neither = await agent(project, "plugin", "marketplace", "add", "./not here");
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("is not a folder, a git URL or owner/repo");
  });
});
