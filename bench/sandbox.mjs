#!/usr/bin/env node
/**
 * The cost of the OS sandbox per command: `bash -c "echo hi"` spawned as run_command spawns it (detached,
 * piped), once as it is and once through `sandbox.wrap` (bwrap with the default policy: mounts worked
 * out from the file system at each wrap, no network), interleaved so machine noise hits both alike.
 * Prints each median, the ratio with its spread (10th–90th percentile of the per-pair ratios) and the
 * added ms per command (goal: under 15 ms). Exit 1 if the goal is missed, or in CI when no sandbox works.
 * Usage: node bench/sandbox.mjs [runs=100]   (after `npm run build`)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = path.join(ROOT, "dist", "index.js");
if (!existsSync(DIST)) {
  console.error(`bench/sandbox: ${DIST} is missing; run "npm run build" first.`);
  process.exit(2);
}
const { createCommandSandbox } = await import(pathToFileURL(DIST).href);
const GOAL_MS = 15;
const runs = Number(process.argv[2] ?? process.env.BENCH_RUNS ?? 100);

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "agent-bench-sandbox-")));
mkdirSync(path.join(root, ".git", "hooks"), { recursive: true });
writeFileSync(path.join(root, ".git", "config"), "[core]\n");
writeFileSync(path.join(root, "package.json"), "{}\n");
const workspace = { root, roots: [root], readRoots: [], resolve: (p) => path.resolve(root, p), relative: (p) => path.relative(root, p) };
const sandbox = createCommandSandbox({}, workspace);
const SPEC = { file: "/bin/bash", args: ["-c", "echo hi"], cwd: root, env: { ...process.env } };

function spawnOnce(s) {
  return new Promise((resolve, reject) => {
    const child = spawn(s.file, s.args, { cwd: s.cwd, env: s.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout.on("data", (b) => (out += b));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && out === "hi\n" ? resolve() : reject(new Error(`exit ${code}: ${out}`))));
  });
}

async function timeOnce(wrapped) {
  const t0 = process.hrtime.bigint();
  if (wrapped) {
    const w = await sandbox.wrap(SPEC);
    await spawnOnce(w);
    w.dispose();
  } else await spawnOnce(SPEC);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
};

try {
  const st = await sandbox.status();
  if (st.kind === "none") {
    console.log(`bench/sandbox: no sandbox here (${st.reason}); nothing to measure.`);
    process.exitCode = process.env.CI ? 1 : 0;
  } else {
    for (let i = 0; i < 5; i++) await Promise.all([timeOnce(false), timeOnce(true)]); // warm up
    const plain = [];
    const boxed = [];
    for (let i = 0; i < runs; i++) {
      plain.push(await timeOnce(false));
      boxed.push(await timeOnce(true));
    }
    const ratios = boxed.map((b, i) => b / plain[i]);
    const added = pct(boxed, 0.5) - pct(plain, 0.5);
    console.log(`\nbench/sandbox: ${runs} interleaved pairs, ${st.kind}, node ${process.version}, ${os.cpus().length} CPUs\n`);
    console.table([
      { command: "bash -c 'echo hi'", "median ms": pct(plain, 0.5).toFixed(1), "p90 ms": pct(plain, 0.9).toFixed(1) },
      { command: `same in ${st.kind}`, "median ms": pct(boxed, 0.5).toFixed(1), "p90 ms": pct(boxed, 0.9).toFixed(1) },
    ]);
    console.log(`ratio ${pct(ratios, 0.5).toFixed(2)}x (p10 ${pct(ratios, 0.1).toFixed(2)}x – p90 ${pct(ratios, 0.9).toFixed(2)}x); added ${added.toFixed(1)} ms per command (goal < ${GOAL_MS} ms)`);
    if (!(added < GOAL_MS)) {
      console.log("goal missed: sandbox cost per command");
      process.exitCode = 1;
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
