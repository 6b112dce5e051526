/**
 * The listing cache (issue 26, item 11), as a user meets it: `agent tools` through the package's bin
 * (dist/cli.cjs) answers a repeated listing from the cache, and whatever the listing depends on (config,
 * Claude Code's settings, user config, folder trust, environment, skills, plugins) shows in the very next
 * listing after a change. With AGENT_DEBUG=1 a hit says so on stderr (it is the only thing it writes
 * there, and dist/cli.js is not loaded at all); a miss that stored prints nothing extra.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { CONFIG_SEARCH_PLACES } from "../../kit/fs/config-file.js";
import { defaultUserConfigDir } from "../../kit/fs/user-config-dir.js";
import { userCacheDir } from "../../kit/fs/user-folders.js";
import { CONFIG_NAMES, listingCacheDir, userConfigDirOf } from "../../cli/listing-cache/key.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { DIST_BIN, DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject, type TempProject } from "../helpers/project.js";
import { loadLoggerOption } from "../helpers/load-logger.js";

afterAll(cleanupTemp);
beforeAll(assertBuilt);
vi.setConfig({ testTimeout: 120_000 });

const HIT = /^agent: listing from the cache \(/m;

/** `agent <args>` through the bin, with a cache folder of the test's own and AGENT_DEBUG=1 (a hit says so). */
function lister(p: TempProject, env: Record<string, string | undefined> = {}) {
  const cache = tempDir("agent-listing-cache-");
  return (args: string[] = ["tools"], more: Record<string, string | undefined> = {}): Promise<CliResult> =>
    runCli(args, { cwd: p.dir, configHome: p.configHome, entry: DIST_BIN, env: { XDG_CACHE_HOME: cache, AGENT_DEBUG: "1", ...env, ...more } });
}

/** A miss: exit 0, nothing on stderr. */
function miss(r: CliResult): CliResult {
  expect(r, r.stderr).toMatchObject({ code: 0, stderr: "" });
  return r;
}

/** A hit: the same output as `from`, and the one debug line. */
function hit(r: CliResult, from: CliResult): void {
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(HIT);
  expect(r.stdout).toBe(from.stdout);
}

const names = (r: CliResult): string[] => (JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name);
const skillEnum = (r: CliResult): string[] => (JSON.parse(r.stdout) as { name: string; inputSchema: { properties: { name: { enum: string[] } } } }[]).find((t) => t.name === "skill")!.inputSchema.properties.name.enum;

describe("the listing cache keeps its search places with the config loader's", () => {
  test("the config file names and the user config folder are the loader's", () => {
    expect(CONFIG_NAMES).toEqual(CONFIG_SEARCH_PLACES);
    const saved = { ...process.env };
    try {
      for (const env of [{ AGENT_CONFIG_HOME: "/x/agent-home" }, { XDG_CONFIG_HOME: "/x/xdg" }, {}]) {
        delete process.env.AGENT_CONFIG_HOME;
        delete process.env.XDG_CONFIG_HOME;
        Object.assign(process.env, env);
        expect(userConfigDirOf(process.env)).toBe(defaultUserConfigDir());
      }
      // The user's cache folder, as kit finds it for plugins (the MCP tool cache).
      for (const env of [{ XDG_CACHE_HOME: "/x/cache" }, {}]) {
        delete process.env.XDG_CACHE_HOME;
        Object.assign(process.env, env);
        expect(listingCacheDir(process.env)).toBe(path.join(userCacheDir(), "listings"));
      }
    } finally {
      process.env.AGENT_CONFIG_HOME = saved.AGENT_CONFIG_HOME;
      process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
      if (saved.AGENT_CONFIG_HOME === undefined) delete process.env.AGENT_CONFIG_HOME;
      if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
      process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
      if (saved.XDG_CACHE_HOME === undefined) delete process.env.XDG_CACHE_HOME;
    }
  });
});

describe.concurrent("agent tools from the listing cache", () => {
  test("a repeated listing is a hit, byte for byte; an edit of the config, Claude Code's settings or the user config, or another environment, shows at once", async () => {
    const p = tempProject({ ".agentrc.json": { permissions: { mode: "default" } } });
    const agent = lister(p);
    const first = miss(await agent());
    expect(first.stdout).toContain("Permission mode: default.");
    hit(await agent(), first);

    p.write(".agentrc.json", { permissions: { mode: "plan" } });
    const plan = miss(await agent());
    expect(plan.stdout).toContain("Permission mode: plan.");
    hit(await agent(), plan);

    p.write(".claude/settings.json", { permissions: { defaultMode: "acceptEdits" } });
    p.write(".agentrc.json", {});
    expect(miss(await agent()).stdout).toContain("Permission mode: acceptEdits.");

    writeFileSync(path.join(p.configHome, "config.json"), JSON.stringify({ disabledPlugins: ["tool-search"] }));
    const user = miss(await agent());
    expect(user.stdout).not.toContain("tool_search");
    expect(first.stdout).toContain("tool_search");

    // Another value of any variable is another listing (AGENT_NO_LISTING_CACHE=1: none is read or written).
    expect(miss(await agent(["tools"], { SOME_VARIABLE: "1" })).stdout).toBe(user.stdout);
    expect(miss(await agent(["tools"], { AGENT_NO_LISTING_CACHE: "1" })).stdout).toBe(user.stdout);
    hit(await agent(), user);
  });

  test("a hit loads nothing but the bin: no dist/cli.js, no kernel, no plugin", async () => {
    const p = tempProject();
    const agent = lister(p, { NODE_OPTIONS: loadLoggerOption(p), AGENT_DEBUG: undefined });
    const loaded = (r: CliResult) => [...r.stderr.matchAll(/^LOADED \S+\/(\S+)$/gm)].map((m) => m[1]);
    const first = await agent();
    expect(loaded(first)).toContain("cli.js");
    const second = await agent();
    expect(second.stdout).toBe(first.stdout);
    expect(loaded(second)).toEqual(["cli.cjs"]);
  });

  test("a skill added or renamed, and a plugin added to the config, show in the next listing", async () => {
    const p = tempProject({ ".claude/skills/first/SKILL.md": "---\nname: first\ndescription: The first skill\n---\nDo it.\n" });
    const agent = lister(p);
    const json = ["tools", "--json"];
    const before = miss(await agent(json));
    expect(skillEnum(before)).toContain("first");
    hit(await agent(json), before);

    p.write(".claude/skills/second/SKILL.md", "---\nname: second\ndescription: The second skill\n---\nDo it.\n");
    expect(skillEnum(miss(await agent(json)))).toEqual(expect.arrayContaining(["first", "second"]));
    p.write(".claude/skills/first/SKILL.md", "---\nname: renamed\ndescription: The first skill\n---\nDo it.\n");
    const renamed = skillEnum(miss(await agent(json)));
    expect(renamed).toContain("renamed");
    expect(renamed).not.toContain("first");

    // A plugin of the project's own (module code that may read anything): listed, and never stored.
    p.write("extra.mjs", `import { definePlugin, z } from ${JSON.stringify(DIST_INDEX_URL)};\nexport default definePlugin({ name: "extra", tools: [{ name: "extra_tool", description: "An extra tool", risk: "read", input: z.object({}), run: () => "ok" }] });\n`);
    p.write(".agentrc.json", { plugins: ["./extra.mjs"] });
    const withPlugin = miss(await agent(json));
    expect(names(withPlugin)).toContain("extra_tool");
    expect(miss(await agent(json)).stdout).toBe(withPlugin.stdout);
  });

  test("agent commands and agent plugins too: a Markdown command added or edited, or a plugin disabled, shows at once", async () => {
    const p = tempProject({ ".claude/commands/hello.md": "---\ndescription: Say hello\n---\nSay hello.\n" });
    const agent = lister(p);
    const commands = miss(await agent(["commands"]));
    expect(commands.stdout).toMatch(/^\/hello .*Say hello$/m);
    hit(await agent(["commands"]), commands);
    p.write(".claude/commands/hello.md", "---\ndescription: Say goodbye\n---\nSay goodbye.\n");
    expect(miss(await agent(["commands"])).stdout).toMatch(/^\/hello .*Say goodbye$/m);
    p.write(".claude/commands/team/review.md", "---\ndescription: Review it\n---\nReview.\n");
    expect(miss(await agent(["commands"])).stdout).toMatch(/^\/team:review .*Review it$/m);

    const plugins = miss(await agent(["plugins"]));
    expect(plugins.stdout).toMatch(/^tool-search +loaded/m);
    hit(await agent(["plugins"]), plugins);
    p.write(".agentrc.json", { disabledPlugins: ["tool-search"] });
    expect(miss(await agent(["plugins"])).stdout).toMatch(/^tool-search +disabled/m);
  });

  test("trusting and untrusting the folder show at once; an untrusted folder's notice is never replaced by a silent hit", async () => {
    const p = tempProject({ ".claude/settings.json": { permissions: { allow: ["Bash(npm test:*)"], defaultMode: "acceptEdits" } } });
    const agent = lister(p, { AGENT_TRUST: undefined });
    const untrusted = await agent();
    expect(untrusted.stderr).toContain("this folder is not trusted");
    expect(untrusted.stdout).toContain("Permission mode: default.");
    expect((await agent()).stderr).toContain("this folder is not trusted");

    expect((await agent(["trust"])).code).toBe(0);
    const trusted = miss(await agent());
    expect(trusted.stdout).toContain("Permission mode: acceptEdits.");
    hit(await agent(), trusted);

    expect((await agent(["untrust"])).code).toBe(0);
    const again = await agent();
    expect(again.stderr).toContain("this folder is not trusted");
    expect(again.stderr).not.toMatch(HIT);
    expect(again.stdout).toBe(untrusted.stdout);
  });

  test("a warning, a code config and an MCP server are never cached", async () => {
    const p = tempProject({ ".claude/agents/bad.md": "---\nname: Not A Name\ndescription: x\n---\nx\n" });
    const agent = lister(p);
    for (let i = 0; i < 2; i++) {
      const r = await agent();
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("bad.md skipped");
      expect(r.stderr).not.toMatch(HIT);
    }

    const code = tempProject({ "agent.config.mjs": "export default { permissions: { mode: 'plan' } };\n" });
    const viaCode = lister(code);
    for (let i = 0; i < 2; i++) expect(miss(await viaCode()).stdout).toContain("Permission mode: plan.");

    const mcp = tempProject({ ".mcp.json": { mcpServers: { demo: { command: process.execPath, args: [path.join(path.dirname(DIST_BIN), "demo-server.js")] } } } });
    const withServer = lister(mcp);
    const listed = miss(await withServer());
    expect(listed.stdout).toMatch(/demo/);
    expect(miss(await withServer()).stdout).toBe(listed.stdout);
  });

  test("a project with .agent/ (after its first run): no audit line, a hit the second time; what a listing reads in .agent/ shows at once", async () => {
    const p = tempProject({ ".agent/audit.jsonl": "", ".agent/sessions/old.jsonl": "{}\n" });
    const agent = lister(p);
    const json = ["tools", "--json"];
    const first = miss(await agent(json));
    hit(await agent(json), first);
    expect(readFileSync(p.auditFile, "utf8")).toBe("");

    p.write(".agent/skills/local/SKILL.md", "---\nname: local\ndescription: A skill of .agent/\n---\nDo it.\n");
    const withSkill = miss(await agent(json));
    expect(skillEnum(withSkill)).toContain("local");
    hit(await agent(json), withSkill);
    p.write(".agent/settings.local.json", { disabledPlugins: ["tool-search"] });
    const local = miss(await agent(json));
    expect(names(local)).not.toContain("tool_search");
    hit(await agent(json), local);
    p.write(".agent/commands/hi.md", "---\ndescription: Say hi\n---\nSay hi.\n");
    expect(miss(await agent(["commands"])).stdout).toMatch(/^\/hi .*Say hi$/m);
    expect(readFileSync(p.auditFile, "utf8")).toBe("");

    // A log the config names is the user's: a listing writes it, so it is never answered from the cache.
    p.write(".agentrc.json", { audit: { path: "audit-of-mine.jsonl" } });
    for (let i = 0; i < 2; i++) expect(names(miss(await agent(json)))).toContain("read_file");
    expect(readFileSync(p.path("audit-of-mine.jsonl"), "utf8")).toMatch(/"kind":"register"/);
  });

  test("a corrupt entry or an unwritable cache folder: the listing as always, no error", async () => {
    const p = tempProject();
    const cache = tempDir("agent-listing-cache-");
    const agent = (env: Record<string, string> = {}) => runCli(["tools"], { cwd: p.dir, configHome: p.configHome, entry: DIST_BIN, env: { XDG_CACHE_HOME: cache, AGENT_DEBUG: "1", ...env } });
    const first = miss(await agent());
    const dir = path.join(cache, "agent-host", "listings");
    const { readdirSync } = await import("node:fs");
    const [entry] = readdirSync(dir);
    writeFileSync(path.join(dir, entry), '{"format":1,"key":');
    expect(miss(await agent()).stdout).toBe(first.stdout);
    hit(await agent(), first);

    // A file where the cache folder would be: nothing can be written under it.
    const blocked = path.join(tempDir("agent-listing-cache-"), "not-a-folder");
    writeFileSync(blocked, "");
    for (let i = 0; i < 2; i++) expect(miss(await agent({ XDG_CACHE_HOME: blocked })).stdout).toBe(first.stdout);
  });
});
