/**
 * Config edits from many real `agent` processes at once lose nothing: each command that says it added
 * an entry finds it on disk afterwards. A lock left by a kill -9'd process is taken over; one held by
 * a live process makes the command wait, then either proceed (released) or fail clearly (bound hit).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { DIST_CLI } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject, type TempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const N = 16;
/** Many real processes on a loaded 2-core machine: a bound that only a hang reaches. */
const LONG = 300_000;
const OFFLINE = { npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
const agent = (p: TempProject, args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: p.dir, configHome: p.configHome, env: { ...OFFLINE, ...env }, timeoutMs: 240_000 });
const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;
const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Every command exited 0 (with its output on failure). */
function allOk(results: { code: number | null; stderr: string; stdout: string }[]): void {
  for (const r of results) expect(r.code, r.stderr + r.stdout).toBe(0);
}

describe(`${N} parallel agent mcp add keep every entry`, { timeout: LONG }, () => {
  for (const scope of ["local", "project", "user"] as const) {
    test(scope, async () => {
      const p = tempProject();
      const added = await Promise.all(names(N, "s").map((n) => agent(p, ["mcp", "add", "-s", scope, "-e", `K=${n}`, n, "--", "node", `${n}.mjs`])));
      allOk(added);
      const file = scope === "local" ? p.path(".agent/settings.local.json") : scope === "project" ? p.path(".mcp.json") : path.join(p.configHome, "config.json");
      const servers = json(file).mcpServers as Record<string, { env: { K: string } }>;
      expect(Object.keys(servers).sort()).toEqual(names(N, "s").sort());
      for (const n of names(N, "s")) expect(servers[n].env.K).toBe(n);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });
  }

  test("the same name twice at once: one is added, the other refused (never replaced unseen)", async () => {
    const p = tempProject();
    const rs = await Promise.all(["1", "2", "3", "4"].map((v) => agent(p, ["mcp", "add", "-e", `K=${v}`, "dup", "--", "node", "x.mjs"])));
    expect(rs.filter((r) => r.code === 0)).toHaveLength(1);
    const winner = rs.find((r) => r.code === 0)!;
    const kept = json(p.path(".agent/settings.local.json")).mcpServers.dup.env.K as string;
    expect(rs.indexOf(winner)).toBe(Number(kept) - 1);
    for (const r of rs.filter((x) => x !== winner)) expect(r.stderr).toContain('an MCP server named "dup" is already in');
  });

  test("parallel agent mcp add and agent mcp remove: the adds stay, the removed one goes", async () => {
    const p = tempProject({ ".mcp.json": { mcpServers: { old: { command: "node", args: ["old.mjs"] } } } });
    const rs = await Promise.all([...names(8, "n").map((n) => agent(p, ["mcp", "add", "-s", "project", n, "--", "node", "a.mjs"])), agent(p, ["mcp", "remove", "-s", "project", "old"])]);
    allOk(rs);
    expect(Object.keys(json(p.path(".mcp.json")).mcpServers).sort()).toEqual(names(8, "n").sort());
  });
});

describe("parallel agent plugin add", { timeout: LONG }, () => {
  test(`${N} with --no-install and no config yet: one .agentrc.json with all ${N}`, async () => {
    const p = tempProject();
    allOk(await Promise.all(names(N, "agent-plugin-p").map((n) => agent(p, ["plugin", "add", n, "--no-install"]))));
    expect([...json(p.path(".agentrc.json")).plugins].sort()).toEqual(names(N, "agent-plugin-p").sort());
  });

  test("into package.json#agent", async () => {
    const p = tempProject({ "package.json": { name: "proj", private: true, agent: {} } });
    allOk(await Promise.all(names(N, "agent-plugin-q").map((n) => agent(p, ["plugin", "add", n, "--no-install"]))));
    expect([...json(p.path("package.json")).agent.plugins].sort()).toEqual(names(N, "agent-plugin-q").sort());
  });

  test("local plugin folders, really installed with npm: every dependency and every entry kept", async () => {
    const files: Record<string, object | string> = { ".agentrc.json": { plugins: [] } };
    const plugins = names(4, "agent-plugin-loc");
    for (const n of plugins) {
      files[`src/${n}/package.json`] = { name: n, version: "1.0.0", type: "module", exports: "./index.mjs" };
      files[`src/${n}/index.mjs`] = `export default { name: "${n}" };\n`;
    }
    const p = tempProject(files);
    allOk(await Promise.all(plugins.map((n) => agent(p, ["plugin", "add", `./src/${n}`]))));
    expect(Object.keys(json(p.path("package.json")).devDependencies).sort()).toEqual(plugins);
    expect([...json(p.path(".agentrc.json")).plugins].sort()).toEqual(plugins);
  });
});

test("concurrent trust decisions about different folders all stay", { timeout: LONG }, async () => {
  const home = tempDir("agent-lock-home-");
  const folders = names(N, "f").map(() => tempProject());
  const rs = await Promise.all(folders.map((p) => runCli(["trust"], { cwd: p.dir, configHome: home, env: { AGENT_TRUST: undefined }, timeoutMs: 120_000 })));
  allOk(rs);
  const recorded = (json(path.join(home, "trusted-folders.json")).folders as { path: string }[]).map((f) => f.path).sort();
  expect(recorded).toEqual(folders.map((p) => p.dir).sort());
});

/** A node process that takes the lock on `file` as agent-host does (its own pid) and holds it until killed or told. */
function holder(file: string): Promise<ChildProcess> {
  const code = `
    const fs = require("node:fs"), os = require("node:os");
    fs.writeFileSync(${JSON.stringify(`${file}.lock`)}, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString(), token: "held-by-test" }), { flag: "wx" });
    process.stdout.write("held\\n");
    process.stdin.on("data", () => { fs.rmSync(${JSON.stringify(`${file}.lock`)}); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (c) => reject(new Error(`holder exited ${c}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));

test("a lock left by a kill -9'd process is taken over at once", { timeout: LONG }, async () => {
  const p = tempProject({ ".mcp.json": { mcpServers: { a: { command: "node" } } } });
  const h = await holder(p.path(".mcp.json"));
  h.kill("SIGKILL");
  await exited(h);
  expect(existsSync(p.path(".mcp.json.lock"))).toBe(true);
  // A bound far below the lock's 30 s age limit: only the dead pid can let it through.
  const r = await agent(p, ["mcp", "add", "-s", "project", "b", "--", "node", "b.mjs"], { AGENT_LOCK_WAIT_MS: "2000" });
  expect(r.code, r.stderr).toBe(0);
  expect(Object.keys(json(p.path(".mcp.json")).mcpServers)).toEqual(["a", "b"]);
  expect(existsSync(p.path(".mcp.json.lock"))).toBe(false);
});

test("a lock held by a live process: the command waits, then fails clearly and changes nothing", { timeout: LONG }, async () => {
  const p = tempProject();
  p.write(".agent/settings.local.json", { mcpServers: { a: { command: "node" } } });
  const file = p.path(".agent/settings.local.json");
  const before = readFileSync(file, "utf8");
  const h = await holder(file);
  try {
    const r = await agent(p, ["mcp", "add", "b", "--", "node", "b.mjs"], { AGENT_LOCK_WAIT_MS: "300" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`another agent process (pid ${h.pid}) holds the lock on ${file} since`);
    expect(r.stderr).toContain(`delete ${file}.lock`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout).not.toContain("Added");
    expect(readFileSync(file, "utf8")).toBe(before);
  } finally {
    h.kill("SIGKILL");
    await exited(h);
  }
});

test("a lock held by a live process and released while the command waits: the command then succeeds", { timeout: LONG }, async () => {
  const p = tempProject();
  const file = p.path(".mcp.json");
  const h = await holder(file);
  const child = spawn(process.execPath, [DIST_CLI, "mcp", "add", "-s", "project", "late", "--", "node", "x.mjs"], {
    cwd: p.dir,
    env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome, AGENT_LOCK_WAIT_MS: "600000" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const waiting = new Promise<void>((resolve) =>
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      if (stderr.includes(`waiting: another agent process (pid ${h.pid}) holds the lock on ${file}`)) resolve();
    }),
  );
  const code = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  await waiting;
  expect(existsSync(file)).toBe(false);
  h.stdin!.write("release\n");
  expect(await code, stderr).toBe(0);
  expect(stdout).toContain('Added local (stdio) MCP server "late"');
  expect(Object.keys(json(file).mcpServers)).toEqual(["late"]);
});
