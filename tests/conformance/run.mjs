#!/usr/bin/env node
// Runs client scenarios of the MCP conformance suite against this repo's MCP plugin (through
// tests/conformance/client.mjs and the build in dist/; run `npm run build` first).
//   node tests/conformance/run.mjs [--json] [--set 2025|2026-07-28] [--all | scenario...]
// Two sets, each with its own pinned suite:
//   2025        @modelcontextprotocol/conformance 0.1.16, every client scenario, at the 2025 wire
//   2026-07-28  @modelcontextprotocol/conformance 0.2.0-alpha.12 (installed as conformance-next), the
//               scored client scenarios of its 2026-07-28 requirement set, run with --spec-version 2026-07-28
// `--all` without `--set` runs both sets. A scenario passes when it has at least one check, every check
// is SUCCESS or WARNING (reported), and none is FAILURE: a scenario with zero checks is not a pass.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");

/** The two sets: each suite as pinned in package.json, and how it is run. */
export const SETS = {
  2025: { pkg: "@modelcontextprotocol/conformance", args: [] },
  "2026-07-28": { pkg: "conformance-next", args: ["--spec-version", "2026-07-28"] },
};
const suiteOf = (set) => path.join(repo, "node_modules", SETS[set].pkg, "dist/index.js");
export const suiteVersion = (set) => JSON.parse(readFileSync(path.join(repo, "node_modules", SETS[set].pkg, "package.json"), "utf8")).version;
export const DEFAULT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

/** The set's client scenarios: every one of 0.1.16 (`conformance list`); the scored client list of the 2026-07-28 requirements. */
export function allClientScenarios(set = "2025") {
  if (set === "2026-07-28") {
    const req = parseYaml(readFileSync(path.join(repo, "node_modules", SETS[set].pkg, "requirements/2026-07-28.yaml"), "utf8"));
    return req.client;
  }
  const out = execFileSync(process.execPath, ["--import", path.join(here, "node20-globsync.mjs"), suiteOf(set), "list"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const client = out.slice(out.indexOf("Client scenarios"));
  return [...client.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

/**
 * The set's extension scenarios (`[extension]` in `conformance list`, e.g. sep-2640's Skills over MCP):
 * on no spec revision's timeline, so the suite runs one at `--spec-version` only with `--force`. They
 * are never part of `--all` (not in the requirement set); named, they run forced.
 */
const extensionCache = new Map();
function extensionScenarios(set) {
  if (!extensionCache.has(set)) {
    const out = execFileSync(process.execPath, ["--import", path.join(here, "node20-globsync.mjs"), suiteOf(set), "list"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    extensionCache.set(set, new Set([...out.matchAll(/^\s+- (\S+) \[extension\]/gm)].map((m) => m[1])));
  }
  return extensionCache.get(set);
}

function runScenario(set, scenario, outDir) {
  const command = `${process.execPath} ${path.join(here, "client.mjs")}`;
  const force = SETS[set].args.length && extensionScenarios(set).has(scenario) ? ["--force"] : [];
  const args = ["--import", path.join(here, "node20-globsync.mjs"), suiteOf(set), "client", "--command", command, "--scenario", scenario, ...SETS[set].args, ...force, "--timeout", "30000", "-o", outDir];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: outDir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (exitCode) => resolve({ exitCode, output }));
  });
}

/** Run `scenarios`, `concurrency` at a time (each has its own servers on free ports); results in the order given. */
export async function runConformance(scenarios = DEFAULT_SCENARIOS, concurrency = 1, set = "2025", onResult = () => {}) {
  if (!existsSync(path.join(repo, "dist/index.js"))) throw new Error("dist/index.js is missing: run npm run build first");
  const results = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const i = next++;
      results[i] = await runOne(set, scenarios[i]);
      onResult(results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

async function runOne(set, scenario) {
    const outDir = mkdtempSync(path.join(os.tmpdir(), "agent-conformance-out-"));
    try {
      const { exitCode, output } = await runScenario(set, scenario, outDir);
      // `auth/x` scenarios write their results one folder deeper (outDir/auth/x-<time>/checks.json).
      const file = readdirSync(outDir, { recursive: true }).map(String).find((f) => path.basename(f) === "checks.json");
      const checks = file ? JSON.parse(readFileSync(path.join(outDir, file), "utf8")) : [];
      const count = (s) => checks.filter((c) => c.status === s).length;
      const passed = count("SUCCESS");
      const failed = count("FAILURE");
      const warnings = count("WARNING");
      return {
        scenario,
        set,
        pass: passed > 0 && failed === 0,
        passed,
        failed,
        warnings,
        exitCode,
        problems: checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
        output: passed > 0 && failed === 0 ? undefined : output.slice(-3000),
      };
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
}

const USAGE = `Usage: node tests/conformance/run.mjs [--json] [--set 2025|2026-07-28] [--all | scenario...]

Runs MCP conformance client scenarios against the built agent CLI (npm run build first).
  --set 2025        @modelcontextprotocol/conformance 0.1.16, at the 2025 wire
  --set 2026-07-28  0.2.0-alpha.12 (conformance-next), its scored 2026-07-28 client scenarios
  --all             every scenario of the set (both sets without --set); default: ${DEFAULT_SCENARIOS.join(", ")}
                    An extension scenario (sep-2640-client-*: Skills over MCP) runs only when named; at 2026-07-28 with --force.
  --json            results as JSON
Environment: CONFORMANCE_JOBS (scenarios at once, default 2), CONFORMANCE_VERBOSE=1 (a failing scenario's output).
Exit code 0 when every scenario run passed.
`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const unknown = argv.find((a) => a.startsWith("-") && !["--json", "--all", "--set"].includes(a));
  if (unknown) {
    process.stderr.write(`unknown option ${unknown}\n\n${USAGE}`);
    process.exit(2);
  }
  const json = argv.includes("--json");
  const all = argv.includes("--all");
  const setAt = argv.indexOf("--set");
  const chosen = setAt >= 0 ? argv[setAt + 1] : undefined;
  if (chosen !== undefined && !(chosen in SETS)) {
    process.stderr.write(`--set must be one of ${Object.keys(SETS).join(", ")}\n`);
    process.exit(2);
  }
  const jobs = Number(process.env.CONFORMANCE_JOBS ?? 2);
  const names = argv.filter((a, i) => !a.startsWith("--") && !(setAt >= 0 && i === setAt + 1));
  const sets = chosen ? [chosen] : all ? Object.keys(SETS) : ["2025"];
  const results = [];
  const totals = [];
  for (const set of sets) {
    // Each result is printed as it comes (a long run that is stopped keeps what it found).
    const print = (r) => {
      if (json) return;
      process.stdout.write(`${r.pass ? "PASS" : "FAIL"}  [${r.set}] ${r.scenario}: ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings\n`);
      for (const p of r.problems) process.stdout.write(`      ${p}\n`);
      if (r.output && process.env.CONFORMANCE_VERBOSE) process.stdout.write(`${r.output}\n`);
    };
    const mine = await runConformance(all ? allClientScenarios(set) : names.length ? names : DEFAULT_SCENARIOS, jobs, set, print);
    results.push(...mine);
    totals.push({ set, suite: `${SETS[set].pkg === "conformance-next" ? "@modelcontextprotocol/conformance" : SETS[set].pkg}@${suiteVersion(set)}`, passed: mine.filter((r) => r.pass).length, total: mine.length });
  }
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    process.stdout.write("\n");
    for (const t of totals) process.stdout.write(`${t.passed}/${t.total} client scenarios passed at the ${t.set} wire (${t.suite})\n`);
  }
  process.exitCode = results.every((r) => r.pass) ? 0 : 1;
}
