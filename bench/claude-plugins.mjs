#!/usr/bin/env node
/**
 * What installed Claude Code plugins cost a command that loads them: `agent commands` with 0, 10 and 30
 * installed copies of the fixture plugin commit-tools (each hashed at every start to check it against
 * the lock), against the same command with none, measured in the same run (after `npm run build`).
 * Each figure is the median of `runs` runs, the cases of a round back to back so machine noise hits all
 * alike; the spread is the slowest run over the fastest.
 * Usage: node bench/claude-plugins.mjs [runs=7] [counts=0,10,30]
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "dist", "cli.js");
const PLUGIN = path.join(ROOT, "tests", "fixtures", "claude-plugins", "marketplace", "plugins", "commit-tools");
if (!existsSync(CLI)) {
  console.error('bench/claude-plugins: dist/ is missing; run "npm run build" first.');
  process.exit(2);
}
const runs = Number(process.argv[2] ?? 7) || 7;
const counts = (process.argv[3] ?? "0,10,30").split(",").map(Number);
const base = mkdtempSync(path.join(os.tmpdir(), "agent-bench-claude-plugins-"));

function agent(home, cwd, ...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, AGENT_CONFIG_HOME: home, AGENT_TRUST: "1", NO_COLOR: "1" }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`agent ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A user config folder with `n` plugins installed from a generated marketplace, and a project. */
function setup(n) {
  const dir = path.join(base, `n${n}`);
  const market = path.join(dir, "market");
  const plugins = [];
  for (let i = 0; i < n; i++) {
    const name = `commit-tools-${i}`;
    cpSync(PLUGIN, path.join(market, "plugins", name), { recursive: true });
    const manifest = path.join(market, "plugins", name, ".claude-plugin", "plugin.json");
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), name }));
    plugins.push({ name, source: `./plugins/${name}` });
  }
  mkdirSync(path.join(market, ".claude-plugin"), { recursive: true });
  writeFileSync(path.join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "bench", owner: { name: "bench" }, plugins }));
  const home = path.join(dir, "home");
  const project = path.join(dir, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, "package.json"), "{}");
  if (n) {
    agent(home, project, "plugin", "marketplace", "add", market);
    for (const p of plugins) agent(home, project, "plugin", "install", `${p.name}@bench`);
  }
  return { home, project };
}

const cases = counts.map((n) => ({ n, ...setup(n), times: [] }));
for (let r = 0; r < runs; r++) {
  for (const c of cases) {
    const start = performance.now();
    agent(c.home, c.project, "commands", "--json");
    c.times.push(performance.now() - start);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const baseline = median(cases.find((c) => c.n === 0)?.times ?? cases[0].times);
console.log(`agent commands --json, median of ${runs} runs (${os.cpus().length} CPUs)`);
console.log("installed  median ms  vs none  spread");
for (const c of cases) {
  const m = median(c.times);
  console.log(`${String(c.n).padStart(9)}  ${m.toFixed(0).padStart(9)}  ${(m / baseline).toFixed(2).padStart(6)}x  ${(Math.max(...c.times) / Math.min(...c.times)).toFixed(2)}x`);
}
rmSync(base, { recursive: true, force: true });
