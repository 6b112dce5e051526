/**
 * Where an MCP server's tool cache and log go, as a user meets it (issue 26, item 8): the package's `agent` bin
 * with a real stdio server (slow-start.mjs, which notes each start in its ready file). In a folder with no
 * `.agent/`, read-only commands leave none behind: the cache goes to the user's cache folder and the log to the
 * user's state folder, each in a folder of the project's own, and the next listing is served from that cache.
 * Where `.agent/` exists, both stay in it. Each test has its own XDG folders.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { projectFolderName } from "../../../kit/index.js";
import { runCli, type CliResult } from "../../helpers/cli.js";
import { DIST_BIN, REPO_ROOT, assertBuilt } from "../../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject, type TempProject } from "../../helpers/project.js";

afterAll(cleanupTemp);
beforeAll(assertBuilt);
vi.setConfig({ testTimeout: 120_000 });

const SLOW = path.join(REPO_ROOT, "tests", "fixtures", "mcp", "slow-start.mjs");

interface Setup {
  p: TempProject;
  cache: string;
  state: string;
  agent(args: string[]): Promise<CliResult>;
  /** How many times the server started. */
  starts(): number;
}

/** A project with one stdio server `s`, and user folders of the test's own. */
function setup(files: Record<string, string | object> = {}): Setup {
  const p = tempProject(files);
  p.write(".mcp.json", { mcpServers: { s: { command: process.execPath, args: [SLOW], env: { READY_FILE: p.path("ready") } } } });
  const home = tempDir("agent-xdg-");
  const cache = path.join(home, "cache");
  const state = path.join(home, "state");
  const agent = (args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome, entry: DIST_BIN, env: { XDG_CACHE_HOME: cache, XDG_STATE_HOME: state } });
  const starts = () => (existsSync(p.path("ready")) ? readFileSync(p.path("ready"), "utf8").split("\n").filter(Boolean).length : 0);
  return { p, cache, state, agent, starts };
}

/** The project's own folder name in the user's folders: its base name and a hash of its real path. */
function ownFolder(p: TempProject): string {
  const name = projectFolderName(p.dir);
  expect(name).toMatch(/^project-[0-9a-f]{16}$/);
  return name;
}

const entries = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^s-[0-9a-f]{8}\.json$/.test(f)) : []);

describe.concurrent("a folder with no .agent/", () => {
  test("read-only commands with an MCP server leave no .agent/; the cache and the log are the user's, and the next listing is served from the cache", async () => {
    const { p, cache, state, agent, starts } = setup();
    const userCache = path.join(cache, "agent-host", "mcp", ownFolder(p));
    const userLog = path.join(state, "agent-host", "logs", ownFolder(p), "mcp-s.log");

    const first = await agent(["tools"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("mcp__s__echo");
    expect(starts()).toBe(1);
    expect(existsSync(p.path(".agent"))).toBe(false);
    expect(entries(userCache)).toHaveLength(1);
    expect(readFileSync(userLog, "utf8")).toMatch(/connected over stdio/);

    // Served from the user's cache: listed, and the server not started.
    const warm = await agent(["tools", "--json"]);
    expect(warm.code, warm.stderr).toBe(0);
    expect((JSON.parse(warm.stdout) as { name: string }[]).map((t) => t.name)).toContain("mcp__s__echo");
    expect(starts()).toBe(1);

    for (const args of [["commands"], ["doctor"], ["--help"], ["mcp", "list"]]) {
      const r = await agent(args);
      expect(r.code, `agent ${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(existsSync(p.path(".agent")), `agent ${args.join(" ")} created .agent/`).toBe(false);
    }
    expect(starts()).toBeGreaterThan(1); // doctor and mcp list start every server
    // agent mcp get names the log where it is.
    const get = await agent(["mcp", "get", "s"]);
    expect(get.stdout).toContain(`log:     ${userLog}\n`);
    expect(existsSync(p.path(".agent"))).toBe(false);
  });

  test("two projects with the same server never share a cache entry", async () => {
    const one = setup();
    const two = setup();
    // The same user folders for both.
    const agentTwo = (args: string[]) => runCli(args, { cwd: two.p.dir, configHome: two.p.configHome, entry: DIST_BIN, env: { XDG_CACHE_HOME: one.cache, XDG_STATE_HOME: one.state } });
    expect((await one.agent(["tools"])).code).toBe(0);
    expect((await agentTwo(["tools"])).code).toBe(0);
    const mcp = path.join(one.cache, "agent-host", "mcp");
    expect(readdirSync(mcp).sort()).toEqual([ownFolder(one.p), ownFolder(two.p)].sort());
    for (const p of [one.p, two.p]) expect(entries(path.join(mcp, ownFolder(p)))).toHaveLength(1);
  });

  test("a first agent call makes .agent/ (its audit log) after the server's files found their place: the user's; the next call's are in .agent/", async () => {
    const { p, cache, state, agent } = setup();
    const call = async () => {
      const r = await runCli(["call", "--permission-mode", "bypass", "mcp__s__echo", '{"text":"hi"}'], { cwd: p.dir, configHome: p.configHome, entry: DIST_BIN, env: { XDG_CACHE_HOME: cache, XDG_STATE_HOME: state } });
      expect(r, r.stderr).toMatchObject({ code: 0, stdout: "echo:hi\n" });
    };
    await call();
    expect(existsSync(p.auditFile)).toBe(true);
    expect(entries(path.join(cache, "agent-host", "mcp", ownFolder(p)))).toHaveLength(1);
    expect(existsSync(path.join(state, "agent-host", "logs", ownFolder(p), "mcp-s.log"))).toBe(true);
    expect(existsSync(p.path(".agent/logs"))).toBe(false);
    await call();
    expect(entries(p.path(".agent/cache/mcp"))).toHaveLength(1);
    expect(readFileSync(p.path(".agent/logs/mcp-s.log"), "utf8")).toMatch(/connected over stdio/);
    expect((await agent(["mcp", "get", "s"])).stdout).toContain(`log:     ${path.join(".agent", "logs", "mcp-s.log")}\n`);
  });
});

describe.concurrent("a folder with .agent/", () => {
  test("the cache and the log stay in .agent/, nothing goes to the user's folders", async () => {
    const { p, cache, state, agent, starts } = setup({ ".agent/settings.local.json": {} });
    const first = await agent(["tools"]);
    expect(first.code, first.stderr).toBe(0);
    expect(entries(p.path(".agent/cache/mcp"))).toHaveLength(1);
    expect(readFileSync(p.path(".agent/logs/mcp-s.log"), "utf8")).toMatch(/connected over stdio/);
    expect((await agent(["tools"])).stdout).toBe(first.stdout);
    expect(starts()).toBe(1);
    expect((await agent(["mcp", "get", "s"])).stdout).toContain(`log:     ${path.join(".agent", "logs", "mcp-s.log")}\n`);
    expect(existsSync(path.join(cache, "agent-host", "mcp"))).toBe(false);
    expect(existsSync(path.join(state, "agent-host"))).toBe(false);
    // A listing writes no audit record, here either.
    expect(existsSync(p.auditFile)).toBe(false);
  });
});
