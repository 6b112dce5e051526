#!/usr/bin/env node
// Runs client scenarios of the MCP conformance suite against this repo's MCP plugin (through
// tests/conformance/client.mjs and the build in dist/; run `npm run build` first).
//   node tests/conformance/run.mjs [--json] [--all | scenario...]
// A scenario passes when it has at least one check, every check is SUCCESS or WARNING (reported),
// and none is FAILURE: a scenario with zero checks is not a pass.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const suite = path.join(repo, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
export const DEFAULT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

/** Every client scenario of the pinned suite (`conformance list`). */
export function allClientScenarios() {
  const out = execFileSync(process.execPath, ["--import", path.join(here, "node20-globsync.mjs"), suite, "list"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const client = out.slice(out.indexOf("Client scenarios"));
  return [...client.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

function runScenario(scenario, outDir) {
  const command = `${process.execPath} ${path.join(here, "client.mjs")}`;
  const args = ["--import", path.join(here, "node20-globsync.mjs"), suite, "client", "--command", command, "--scenario", scenario, "--timeout", "30000", "-o", outDir];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: outDir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (exitCode) => resolve({ exitCode, output }));
  });
}

/** Run `scenarios`, `concurrency` at a time (each has its own servers on free ports); results in the order given. */
export async function runConformance(scenarios = DEFAULT_SCENARIOS, concurrency = 1) {
  if (!existsSync(path.join(repo, "dist/index.js"))) throw new Error("dist/index.js is missing: run npm run build first");
  const results = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const i = next++;
      results[i] = await runOne(scenarios[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

async function runOne(scenario) {
    const outDir = mkdtempSync(path.join(os.tmpdir(), "agent-conformance-out-"));
    try {
      const { exitCode, output } = await runScenario(scenario, outDir);
      // `auth/x` scenarios write their results one folder deeper (outDir/auth/x-<time>/checks.json).
      const file = readdirSync(outDir, { recursive: true }).map(String).find((f) => path.basename(f) === "checks.json");
      const checks = file ? JSON.parse(readFileSync(path.join(outDir, file), "utf8")) : [];
      const count = (s) => checks.filter((c) => c.status === s).length;
      const passed = count("SUCCESS");
      const failed = count("FAILURE");
      const warnings = count("WARNING");
      return {
        scenario,
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const json = process.argv.includes("--json");
  const jobs = Number(process.env.CONFORMANCE_JOBS ?? 2);
  const names = process.argv.slice(2).filter((a) => a !== "--json" && a !== "--all");
  const results = await runConformance(process.argv.includes("--all") ? allClientScenarios() : names.length ? names : DEFAULT_SCENARIOS, jobs);
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const r of results) {
      process.stdout.write(`${r.pass ? "PASS" : "FAIL"}  ${r.scenario}: ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings\n`);
      for (const p of r.problems) process.stdout.write(`      ${p}\n`);
      if (r.output && process.env.CONFORMANCE_VERBOSE) process.stdout.write(`${r.output}\n`);
    }
    process.stdout.write(`\n${results.filter((r) => r.pass).length}/${results.length} client scenarios passed\n`);
  }
  process.exitCode = results.every((r) => r.pass) ? 0 : 1;
}
