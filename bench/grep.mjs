#!/usr/bin/env node
/**
 * The `grep` and `list_files` tools on this repository against ripgrep (`rg`), in the same run and
 * interleaved: each through the gate (`host.tools.call`, audit off, the output cap raised so nothing is cut), rg as a process started for each
 * search, as an agent that shells out to it would. Both honour .gitignore and search hidden files
 * (rg --hidden, with .git and .agent left out as the tools do), and the bench checks that they found
 * the same number of matching lines. Prints the medians and the ratio tool/rg; no goal (rg is native
 * code and the yardstick). Usage: node bench/grep.mjs [rounds=7]   (after `npm run build`; rg from
 * $RG or the PATH, e.g. `apt-get install ripgrep`)
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
if (!existsSync(INDEX)) {
  console.error(`bench/grep: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const RG = process.env.RG || "rg";
if (spawnSync(RG, ["--version"]).status !== 0) {
  console.log("bench/grep: ripgrep (rg) not found: install it (apt-get install ripgrep) or set RG=/path/to/rg; skipped.");
  process.exit(0);
}
const { createHost } = await import(pathToFileURL(INDEX).href);
const { builtinPlugins } = await import(pathToFileURL(path.join(ROOT, "dist", "builtins.js")).href);
const rounds = Number(process.argv[2] ?? 7);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const RG_ARGS = ["--hidden", "--no-config", "-g", "!.git", "-g", "!.agent"];

const cases = [
  { label: "grep literal, many hits (import)", tool: ["grep", { pattern: "import", max_results: 10_000 }], rg: ["-n", "import", "."] },
  { label: "grep literal, few hits (shellSubjects)", tool: ["grep", { pattern: "shellSubjects", max_results: 10_000 }], rg: ["-n", "shellSubjects", "."] },
  { label: "grep regex (function \\w+\\()", tool: ["grep", { pattern: "function \\w+\\(", max_results: 10_000 }], rg: ["-n", "function \\w+\\(", "."] },
  { label: "list_files **/*", tool: ["list_files", { limit: 100_000 }], rg: ["--files", "."] },
];

const host = await createHost({ cwd: ROOT, userConfigDir: false, audit: false, config: { tools: { maxOutputBytes: 256 * 1024 * 1024 } }, builtins: builtinPlugins.filter((b) => b.name === "tools") });
try {
  const rows = [];
  for (const c of cases) {
    const ours = [];
    const theirs = [];
    let oursCount = 0;
    let rgCount = 0;
    for (let i = 0; i < rounds; i++) {
      let t0 = performance.now();
      const r = await host.tools.call(c.tool[0], c.tool[1]);
      ours.push(performance.now() - t0);
      if (!r.ok) throw new Error(`${c.tool[0]} failed: ${r.output}`);
      oursCount = r.output.split("\n").filter((l) => l && !l.startsWith("(")).length;
      t0 = performance.now();
      const rg = spawnSync(RG, [...RG_ARGS, ...c.rg], { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
      theirs.push(performance.now() - t0);
      rgCount = rg.stdout.split("\n").filter(Boolean).length;
    }
    const a = median(ours);
    const b = median(theirs);
    rows.push([c.label, `${a.toFixed(1)} ms`, `${b.toFixed(1)} ms`, `${(a / b).toFixed(2)}x`, oursCount === rgCount ? `${oursCount} = ${rgCount}` : `${oursCount} ≠ ${rgCount}`]);
  }
  const head = ["case", "tool (gate)", "rg", "ratio", "lines found (tool = rg)"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  console.log(`bench/grep: this repository, median of ${rounds} rounds`);
  for (const r of [head, ...rows]) console.log("  " + r.map((c, i) => c.padEnd(widths[i])).join("  "));
} finally {
  await host.close();
}
