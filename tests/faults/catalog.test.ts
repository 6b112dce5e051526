/**
 * The fault catalog (tests/fixtures/README.md), run from outside: every fixture that does something
 * wrong on purpose (a config, a plugin, an MCP server) goes through the built CLI in a fresh project,
 * and the user gets the documented exit code, a message that names the problem, and no stack trace or
 * crash. The catalog and this table must list the same fixtures, and every fixture on disk is in both.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runCli, type CliResult } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";
import { FAULTS, type Fault } from "./cases.js";

const FIXTURES = path.join(REPO_ROOT, "tests", "fixtures");
afterAll(cleanupTemp);

/** Fixtures on disk: folders in configs/, files in plugins/ and mcp/; `_` files are helpers, not faults. */
function fixturesOnDisk(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(path.join(FIXTURES, "configs"), { withFileTypes: true })) if (d.isDirectory()) out.push(`configs/${d.name}`);
  for (const dir of ["plugins", "mcp"]) {
    for (const f of readdirSync(path.join(FIXTURES, dir))) if (f.endsWith(".mjs") && !f.startsWith("_")) out.push(`${dir}/${f}`);
  }
  return out.sort();
}

/** The fixtures the catalog documents: each table row starts with the fixture's path in backquotes. */
function fixturesInCatalog(): string[] {
  const text = readFileSync(path.join(FIXTURES, "README.md"), "utf8");
  return [...text.matchAll(/^\| `((?:configs|plugins|mcp)\/[^`]+?)\/?` \|/gm)].map((m) => m[1]).sort();
}

/** Start an HTTP fixture (it prints `listening <port>` first) and give its URL. */
async function serve(fixture: string, args: string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(FIXTURES, fixture), "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /listening (?:http:\/\/127\.0\.0\.1:)?(\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`${fixture} exited (${code}) before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill("SIGKILL") };
}

async function setUp(f: Fault): Promise<{ project: TempProject; stop?: () => void }> {
  const project = tempProject();
  if (f.fixture.startsWith("configs/")) {
    cpSync(path.join(FIXTURES, f.fixture), project.dir, { recursive: true });
    if (f.config) project.write(".agentrc.json", f.config);
  }
  if (f.fixture.startsWith("plugins/")) {
    const entry = f.options ? [path.join(FIXTURES, f.fixture), f.options] : path.join(FIXTURES, f.fixture);
    project.write(".agentrc.json", { ...f.config, plugins: [entry, ...(f.extraPlugins ?? []).map((p) => path.join(FIXTURES, p))] });
  }
  if (f.fixture.startsWith("mcp/")) {
    let stop: (() => void) | undefined;
    let server: Record<string, unknown>;
    if (f.http) {
      const s = await serve(f.fixture, f.args ?? []);
      stop = s.stop;
      server = { url: `${s.url}${f.http}` };
    } else server = { command: process.execPath, args: [path.join(FIXTURES, f.fixture), ...(f.args ?? [])], ...(f.server ?? {}) };
    project.write(".mcp.json", { mcpServers: { s: server } });
    if (f.config) project.write(".agentrc.json", f.config);
    return { project, stop };
  }
  return { project };
}

/** What a user must never see: a stack frame, a crash message from Node, an unhandled rejection. */
const CRASH = /^\s+at .+:\d+:\d+\)?$|Unhandled|triggerUncaughtException|Maximum call stack|FATAL ERROR|node:internal/m;

async function runFault(f: Fault): Promise<CliResult & { made: string[] }> {
  const { project, stop } = await setUp(f);
  try {
    const r = await runCli(f.run, { cwd: project.dir, configHome: project.configHome, env: f.env, timeoutMs: 40_000 });
    return { ...r, made: (f.absent ?? []).filter((rel) => existsSync(project.path(rel))) };
  } finally {
    stop?.();
  }
}

test("every fixture on disk is in the catalog (tests/fixtures/README.md) and in this table, and nothing else", () => {
  const disk = fixturesOnDisk();
  expect(fixturesInCatalog()).toEqual(disk);
  expect([...new Set(FAULTS.map((f) => f.fixture))].sort()).toEqual(disk);
  expect(disk.length).toBeGreaterThanOrEqual(25);
});

describe.concurrent("each fault, through the built CLI", () => {
  test.each(FAULTS.map((f) => [`${f.fixture}: ${f.run.join(" ")}`, f] as const))("%s", async (_name, f) => {
    const r = await runFault(f);
    const all = `${r.stdout}\n${r.stderr}`;
    expect(r.signal, all).toBeNull();
    expect(r.code, all).toBe(f.code);
    expect(all).not.toMatch(CRASH);
    for (const says of [f.says].flat()) expect(all).toMatch(says);
    expect(r.made, "files the attack would have made").toEqual([]);
  });
});
