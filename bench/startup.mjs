#!/usr/bin/env node
/**
 * Startup time of the built CLI (the package's `agent` bin, dist/cli.cjs) against bare Node, measured in the same run,
 * with the same Node (process.execPath: `/path/to/node22 bench/startup.mjs` measures Node 22 against Node 22):
 *   agent --version   vs  node -e 0   (goal, issue 26: ≤ 1.1x)
 *   agent tools       vs  node -e 0   (goal, issue 26: ≤ 1.5x; built-in plugins only)
 * `agent tools` is answered from the listing cache (cli/listing-cache) after the first run: the warm-up run
 * stores it, every measured run is a hit. "agent tools (cold, no cache)" runs with AGENT_NO_LISTING_CACHE=1:
 * what a miss costs (the first run in a folder, or after a change to what the listing depends on).
 * Runs are interleaved (baseline, --version, tools, baseline, ...) so machine noise hits all alike.
 * `tools` runs in an empty temp project with an empty AGENT_CONFIG_HOME. "agent tools (trusted)" runs in a
 * project with Claude Code settings (rules, env, hooks), trusted by a decision with its fingerprint: the
 * trust check reads the decision and hashes every widening part. With AGENT_CLI_BASE=<older dist/cli.js>,
 * the same two run with that build too, for the cost of a change (e.g. the trust check: goal ≤ 1.02x).
 * Each child also reports its own CPU time at exit (user + system, all its threads: a `--require` preload every
 * case gets, the baseline too): "cpu ratio" moves less than wall time on a loaded machine. Goals are judged on wall time.
 * Usage: node bench/startup.mjs [runs=20]   (after `npm run build`)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).bin.agent;
const CLI = process.env.AGENT_CLI ?? path.join(ROOT, BIN);
if (!existsSync(CLI)) {
  console.error(`bench/startup: ${CLI} is missing; run "npm run build" first.`);
  process.exit(2);
}

const runs = Number(process.argv[2] ?? process.env.BENCH_RUNS ?? 20);
const base = mkdtempSync(path.join(os.tmpdir(), "agent-bench-startup-"));
const project = path.join(base, "project");
const configHome = path.join(base, "user-config");
mkdirSync(path.join(project, ".git"), { recursive: true }); // marks the project root
mkdirSync(configHome);
// The listing cache in a folder of its own: the first run stores, nothing of the user's own cache is used.
const env = { ...process.env, AGENT_CONFIG_HOME: configHome, XDG_CACHE_HOME: path.join(base, "cache"), NO_COLOR: "1" };
// NODE_EXTRA_CA_CERTS: Node reads that bundle at every start (~0.07 s on a system bundle), which would hide what
// agent-host costs in a fatter baseline; every case runs without it.
for (const k of Object.keys(env)) if ((k.startsWith("AGENT_") && k !== "AGENT_CONFIG_HOME") || k === "NODE_OPTIONS" || k === "NODE_EXTRA_CA_CERTS") delete env[k];

// A trusted project with parts that widen: the decision (with its fingerprint) is read and each part hashed.
const trusted = path.join(base, "trusted");
mkdirSync(path.join(trusted, ".git"), { recursive: true });
mkdirSync(path.join(trusted, ".claude"));
writeFileSync(
  path.join(trusted, ".claude", "settings.json"),
  JSON.stringify({ permissions: { allow: ["Bash(npm test:*)", "Read", "Edit"], deny: ["Bash(rm:*)"] }, env: { FOO: "1" }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] } }),
);
const trustRun = spawnSync(process.execPath, [CLI, "trust"], { cwd: trusted, env, stdio: ["ignore", "pipe", "pipe"] });
if (trustRun.status !== 0) throw new Error(`agent trust failed: ${trustRun.stderr}`);
const BASE_CLI = process.env.AGENT_CLI_BASE;
const CPU_REPORT = path.join(base, "cpu-report.cjs");
writeFileSync(CPU_REPORT, 'process.on("exit", () => { const u = process.cpuUsage(); require("fs").writeSync(2, `\\nbench-cpu-us ${u.user + u.system}\\n`); });\n');

const CASES = [
  { name: "node -e 0 (baseline)", args: ["-e", "0"] },
  { name: "agent --version", args: [CLI, "--version"], goal: 1.1 },
  { name: "agent tools", args: [CLI, "tools"], goal: 1.5 },
  { name: "agent tools (trusted)", args: [CLI, "tools"], cwd: trusted, goal: 1.5 },
  { name: "agent tools (cold, no cache)", args: [CLI, "tools"], env: { AGENT_NO_LISTING_CACHE: "1" } },
  ...(BASE_CLI
    ? [
        { name: "base: agent --version", args: [BASE_CLI, "--version"] },
        { name: "base: agent tools", args: [BASE_CLI, "tools"] },
        { name: "base: agent tools (trusted)", args: [BASE_CLI, "tools"], cwd: trusted, env: { AGENT_TRUST: "1" } },
      ]
    : []),
];

/** Wall time and the child's own CPU time, in ms. */
function timeOnce(args, cwd = project, extra = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--require", CPU_REPORT, ...args], { cwd, env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const cpu = /bench-cpu-us (\d+)/.exec(String(r.stderr));
  if (!cpu) throw new Error(`${args.join(" ")} reported no CPU time: ${r.stderr}`);
  return { ms, cpu: Number(cpu[1]) / 1000 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

try {
  for (const c of CASES) timeOnce(c.args, c.cwd, c.env); // warm the file cache (and store the two listings)
  const listings = path.join(env.XDG_CACHE_HOME, "agent-host", "listings");
  const stored = existsSync(listings) ? readdirSync(listings).length : 0;
  const samples = CASES.map(() => []);
  const cpuSamples = CASES.map(() => []);
  for (let i = 0; i < runs; i++) {
    CASES.forEach((c, j) => {
      const t = timeOnce(c.args, c.cwd, c.env);
      samples[j].push(t.ms);
      cpuSamples[j].push(t.cpu);
    });
  }
  const baseline = median(samples[0]);
  const cpuBaseline = median(cpuSamples[0]);
  const rows = CASES.map((c, j) => {
    const m = median(samples[j]);
    const ratio = m / baseline;
    return {
      command: c.name,
      "median ms": m.toFixed(1),
      "min ms": Math.min(...samples[j]).toFixed(1),
      ratio: `${ratio.toFixed(2)}x`,
      "cpu ms": median(cpuSamples[j]).toFixed(1),
      "cpu ratio": `${(median(cpuSamples[j]) / cpuBaseline).toFixed(2)}x`,
      goal: c.goal ? `≤ ${c.goal}x` : "",
      ok: c.goal ? (ratio <= c.goal ? "yes" : "NO") : "",
    };
  });
  console.log(`\nbench/startup: ${runs} interleaved runs each, node ${process.version}, ${os.cpus().length} CPUs\n`);
  console.table(rows);
  console.log(stored >= 2 ? `listing cache: ${stored} entries stored by the warm-up runs; "agent tools" and "(trusted)" are hits` : `listing cache: ${stored} entries stored: the "agent tools" rows are misses`);
  if (BASE_CLI) {
    const at = (name, of = samples) => median(of[CASES.findIndex((c) => c.name === name)]);
    for (const name of ["agent --version", "agent tools", "agent tools (trusted)"]) {
      console.log(`${name}: this build / base = ${(at(name) / at(`base: ${name}`)).toFixed(3)}x (cpu ${(at(name, cpuSamples) / at(`base: ${name}`, cpuSamples)).toFixed(3)}x)`);
    }
  }
  const missed = rows.filter((r) => r.ok === "NO");
  if (missed.length) {
    console.log(`goal missed: ${missed.map((r) => r.command).join(", ")}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
