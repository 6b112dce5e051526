#!/usr/bin/env node
/**
 * Per-call overhead of the gate: a trivial local zod tool called directly (its `run`) against
 * the same tool through `host.tools.call` (validation, permission, timeout, cap, hooks, audit on,
 * events), measured in the same run, in interleaved batches. Goal: overhead < 100 µs per call (median
 * of batches). Usage: node bench/gate.mjs [calls=20000] [batch=500]   (after `npm run build`)
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
if (!existsSync(INDEX)) {
  console.error(`bench/gate: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const { createHost, z } = await import(pathToFileURL(INDEX).href);

const calls = Number(process.argv[2] ?? 20_000);
const batch = Number(process.argv[3] ?? 500);
const GOAL_US = 100;

const dir = mkdtempSync(path.join(os.tmpdir(), "agent-bench-gate-"));
mkdirSync(path.join(dir, ".git"));
const add = {
  name: "add",
  description: "Add two numbers",
  risk: "read",
  input: z.object({ a: z.number(), b: z.number(), note: z.string().optional() }),
  run: ({ a, b }) => String(a + b),
};

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

let host;
try {
  host = await createHost({ cwd: dir, builtins: [], userConfigDir: false, plugins: [{ name: "bench", tools: [add] }] });
  // The registry hands out no way to run a tool but the gate: the baseline calls the definition itself.
  const tool = { definition: add };
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  const ctx = { signal: new AbortController().signal, aborted: false, onAbort: () => () => {}, callId: "direct", sessionId: host.sessionId, cwd: host.workspace.root, workspace: host.workspace, log, processes: { track: () => () => {} }, progress() {} };
  const input = { a: 1, b: 2, note: "a short argument" };

  const direct = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await tool.definition.run(input, ctx);
    return Number(process.hrtime.bigint() - t0) / 1e3 / batch;
  };
  const gated = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) {
      const r = await host.tools.call("add", input);
      if (!r.ok) throw new Error(`gate call failed: ${r.output}`);
    }
    return Number(process.hrtime.bigint() - t0) / 1e3 / batch;
  };

  // warm up (JIT, the audit file descriptor)
  for (let i = 0; i < 3; i++) {
    await direct();
    await gated();
  }
  const d = [];
  const g = [];
  const overhead = [];
  for (let done = 0; done < calls; done += batch) {
    const a = await direct();
    const b = await gated();
    d.push(a);
    g.push(b);
    overhead.push(b - a);
  }
  const records = readFileSync(path.join(dir, ".agent", "audit.jsonl"), "utf8").split("\n").filter(Boolean).length;
  const o = median(overhead);
  console.log(`\nbench/gate: ${calls} calls through the gate in batches of ${batch} (audit on: ${records} records written), node ${process.version}\n`);
  console.table([
    { path: "direct (definition.run)", "µs/call": median(d).toFixed(2), goal: "" },
    { path: "through the gate (host.tools.call)", "µs/call": median(g).toFixed(2), goal: "" },
    { path: "gate overhead", "µs/call": o.toFixed(2), goal: `< ${GOAL_US} µs: ${o < GOAL_US ? "yes" : "NO"}` },
  ]);
  console.log(`ratio gate/direct: ${(median(g) / median(d)).toFixed(0)}x (the direct call does almost nothing; the overhead is what counts)`);
  if (o >= GOAL_US) process.exitCode = 1;
} finally {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
}
