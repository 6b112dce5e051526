/**
 * An npm source in a marketplace entry installs through npm (here a local tarball, offline), its
 * dependencies kept inside it; `userConfig` values are asked for at install (`--config KEY=VALUE`
 * headless, a required one missing is a usage error) and reach the plugin's servers as
 * `${user_config.KEY}`; manifest paths, `strict: false` entries and unknown manifest keys are read as
 * Claude Code reads them.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { readPackage } from "../../../plugins/claude-plugins/package.js";
import { toPlugin } from "../../../plugins/claude-plugins/to-plugin.js";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempProject, type TempProject } from "../../helpers/project.js";
import { SERVER_TOOLS } from "./_helpers.js";

vi.setConfig({ testTimeout: 120_000 });
afterAll(cleanupTemp);

const write = (file: string, value: unknown) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

/** A Claude Code plugin published as an npm package (packed to a tarball), and a marketplace naming it. */
function npmMarketplace(project: TempProject): string {
  const base = path.dirname(project.dir);
  const pkg = path.join(base, "npm-plugin");
  write(path.join(pkg, "package.json"), { name: "claude-plugin-npm-demo", version: "2.0.0", type: "module" });
  write(path.join(pkg, ".claude-plugin", "plugin.json"), {
    name: "npm-demo",
    version: "2.0.0",
    userConfig: { endpoint: { type: "string", title: "Endpoint", description: "the API to call", required: true } },
  });
  write(path.join(pkg, ".mcp.json"), { mcpServers: { calc: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs", "--endpoint", "${user_config.endpoint}"] } } });
  cpSync(path.join(SERVER_TOOLS, "server.mjs"), path.join(pkg, "server.mjs"));
  const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", base, pkg], { cwd: base, encoding: "utf8" }).trim().split("\n").pop()!;
  const market = path.join(base, "npm-market");
  write(path.join(market, ".claude-plugin", "marketplace.json"), { name: "npm-market", owner: { name: "t" }, plugins: [{ name: "npm-demo", source: { source: "npm", package: path.join(base, tgz) } }] });
  return market;
}

describe("an npm source", () => {
  test("installs through npm; a required userConfig value missing headless is a usage error; given, the server gets it", async () => {
    const project = tempProject();
    const env = { npm_config_offline: "true", npm_config_cache: path.join(path.dirname(project.dir), "npm-cache") };
    const agent = (...args: string[]) => runCli(args, { cwd: project.dir, configHome: project.configHome, env });
    expect((await agent("plugin", "marketplace", "add", npmMarketplace(project))).code).toBe(0);
    const missing = await agent("plugin", "install", "npm-demo@npm-market");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("plugin npm-demo needs endpoint (the API to call): pass --config endpoint=<value>");
    const install = await agent("plugin", "install", "npm-demo@npm-market", "--config", "endpoint=https://api.example.test");
    expect(install.code).toBe(0);
    expect(install.stdout).toContain("from npm:");
    const listed = JSON.parse((await agent("plugin", "list", "--json")).stdout).plugins;
    expect(listed).toEqual([expect.objectContaining({ id: "npm-demo@npm-market", version: "2.0.0", status: "ok", userConfig: ["endpoint"] })]);
    const sum = await agent("--permission-mode", "bypass", "call", "mcp__plugin_npm-demo_calc__add", '{"a":1,"b":1}');
    expect(sum.stdout.trim()).toBe("2");
  });
});

describe("reading plugin folders as Claude Code does", () => {
  test("${user_config.KEY} and ${CLAUDE_PLUGIN_ROOT} in server entries; a hook gets CLAUDE_PLUGIN_OPTION_<KEY>", () => {
    const project = tempProject({
      "p/.claude-plugin/plugin.json": { name: "opts", userConfig: { token: { type: "string", sensitive: true } }, hooks: { Stop: [{ hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/stop.sh" }] }] } },
      "p/.mcp.json": { srv: { command: "${CLAUDE_PLUGIN_ROOT}/bin/srv", args: ["--token", "${user_config.token}", "${HOME}"] } },
    });
    const plugin = toPlugin(readPackage(project.path("p")), { dataDir: project.path("data"), userConfig: { token: "abc" } });
    const servers = plugin.sections!.mcpServers as Record<string, any>;
    expect(servers["plugin_opts_srv"]).toEqual({ command: `${project.path("p")}/bin/srv`, args: ["--token", "abc", "${HOME}"], cwd: project.path("p") });
    const hook = (plugin.sections!.hooks as any).Stop[0].hooks[0];
    expect(hook.command).toBe(`${project.path("p")}/stop.sh`);
    expect(hook.env).toMatchObject({ CLAUDE_PLUGIN_ROOT: project.path("p"), CLAUDE_PLUGIN_DATA: project.path("data"), CLAUDE_PLUGIN_OPTION_TOKEN: "abc" });
  });

  test("manifest paths add command folders and single files; named skills replace skills/; unknown keys and parts are listed", () => {
    const project = tempProject({
      "p/.claude-plugin/plugin.json": { name: "paths", commands: ["./extra", "./one.md"], skills: ["./picked/alpha"], lspServers: {}, somethingNew: true },
      "p/commands/a.md": "A",
      "p/extra/b.md": "B",
      "p/one.md": "---\ndescription: one\n---\nOne",
      "p/skills/unpicked/SKILL.md": "---\nname: unpicked\ndescription: x\n---\n",
      "p/picked/alpha/SKILL.md": "---\nname: alpha\ndescription: x\n---\n",
      "p/.lsp.json": {},
    });
    const pkg = readPackage(project.path("p"));
    expect(pkg.commandDirs).toEqual([project.path("p/commands"), project.path("p/extra")]);
    expect(pkg.commandFiles).toEqual([project.path("p/one.md")]);
    expect(pkg.skillDirs).toEqual([]);
    expect(pkg.skillFolders).toEqual([project.path("p/picked/alpha")]);
    expect(pkg.unsupported).toEqual(['LSP servers (plugin.json "lspServers")', 'plugin.json key "somethingNew"', "LSP servers (.lsp.json)"]);
  });

  test("a folder that is not a plugin, or a manifest with a bad name, is a clear error", () => {
    const project = tempProject({ "bad/.claude-plugin/plugin.json": { name: "no spaces allowed" }, "broken/plugin.json": "{ nope" });
    expect(() => readPackage(project.path("nothing-here"))).toThrow(/is not a plugin: it has no \.claude-plugin\/plugin\.json and no plugin\.json/);
    expect(() => readPackage(project.path("bad"))).toThrow(/name "no spaces allowed" is not a plugin name/);
    expect(() => readPackage(project.path("broken"))).toThrow(/plugin\.json is not valid JSON/);
  });
});
