#!/usr/bin/env node
/**
 * What judging a command line costs: `shellSubjects` (parse, unwrap, nested shells) over a set of
 * ordinary and tricky lines, this build against a baseline build (AGENT_BASE_DIST=<old dist folder>; without it,
 * against itself), interleaved batches, median and spread. Goal: under 1 ms per line on this machine.
 * Usage: AGENT_BASE_DIST=/path/to/old/dist node bench/shell-judge.mjs [rounds=30]   (after `npm run build`)
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
if (!existsSync(INDEX)) {
  console.error(`bench/shell-judge: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const base = process.env.AGENT_BASE_DIST ? path.join(process.env.AGENT_BASE_DIST, "index.js") : INDEX;
const mine = (await import(pathToFileURL(INDEX).href)).shellSubjects;
const theirs = (await import(pathToFileURL(base).href + (base === INDEX ? "?base" : ""))).shellSubjects;
const rounds = Number(process.argv[2] ?? 30);
const GOAL_MS = 1;
const LINES = [
  "git status", "ls | wc -l", "npm test", "cd sub && make", 'git commit -m "fix the bug"', "find . -name '*.ts' | xargs wc -l",
  "timeout 60 npm test", "bash -c 'npm run build && npm test'", "FOO=1 env -i sudo -u me nice -n 5 rm -rf build", "for f in *.md; do wc -l \"$f\"; done",
  "echo $(date) > out.log 2>&1", "sh <<'EOF'\nls\nEOF",
];

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
async function perLine(fn) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 20; i++) for (const l of LINES) await fn(l);
  return Number(process.hrtime.bigint() - t) / 1e6 / (20 * LINES.length);
}
await perLine(mine);
await perLine(theirs);
const a = [];
const b = [];
for (let r = 0; r < rounds; r++) {
  a.push(await perLine(mine));
  b.push(await perLine(theirs));
}
const ratios = a.map((x, i) => x / b[i]);
console.log(`bench/shell-judge: ${LINES.length} lines, ${rounds} rounds`);
console.log(`  this build  ${median(a).toFixed(3)} ms/line (p10 ${pct(a, 0.1).toFixed(3)}, p90 ${pct(a, 0.9).toFixed(3)})`);
console.log(`  baseline    ${median(b).toFixed(3)} ms/line (p10 ${pct(b, 0.1).toFixed(3)}, p90 ${pct(b, 0.9).toFixed(3)})`);
console.log(`  ratio       ${median(ratios).toFixed(2)}x (p10 ${pct(ratios, 0.1).toFixed(2)}, p90 ${pct(ratios, 0.9).toFixed(2)}); goal under ${GOAL_MS} ms/line: ${median(a) < GOAL_MS ? "met" : "MISSED"}`);
process.exitCode = median(a) < GOAL_MS ? 0 : 1;
