#!/usr/bin/env node
/**
 * Telemetry overhead (after `npm run build`): the same work in one process with telemetry off and on
 * (OTLP/HTTP JSON to a receiver in a child process, every signal exported):
 *   1. gated calls: `host.tools.call("read_file")`, one at a time;
 *   2. agent runs: `host.run` against the fake OpenAI server (a child process, over HTTP with streaming),
 *      5 turns each with a read_file call, then the answer: a run as the CLI makes one, the model cheap.
 * Each round measures both in alternating order; the ratio is the median of the rounds' ratios, with
 * their range, in this process's CPU time (user + system: what the export costs is CPU here, and CPU
 * time moves far less than wall time on a shared machine) and in wall time.
 * Goal: on / off ≤ 1.05x. Usage: node bench/telemetry.mjs [rounds=7] [calls=1000] [runs=40]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [rounds, calls, runs] = [Number(process.argv[2] ?? 7) || 7, Number(process.argv[3] ?? 1000) || 1000, Number(process.argv[4] ?? 40) || 40];
const GOAL = 1.05;
const dist = (f) => pathToFileURL(path.join(ROOT, "dist", f)).href;
const { createHost } = await import(dist("index.js"));
const { builtinPlugins } = await import(dist("builtins.js"));

// The receiver: a child process, so what it costs is not counted in this one.
const receiver = spawn(process.execPath, ["-e", `require("node:http").createServer((q, s) => { q.resume(); q.on("end", () => s.writeHead(200, {"content-type":"application/json"}).end("{}")); }).listen(0, "127.0.0.1", function () { console.log(this.address().port); });`], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((resolve) => receiver.stdout.once("data", (d) => resolve(Number(String(d).trim()))));

const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-telemetry-"));
const script = path.join(tmp, "script.json");
const toolTurn = (i) => ({ toolCalls: [{ id: `call_${i}`, name: "read_file", arguments: { path: "notes.txt" } }] });
writeFileSync(script, JSON.stringify([1, 2, 3, 4, 5].map(toolTurn).concat([{ text: "done" }])));
const model = spawn(process.execPath, [path.join(ROOT, "tests/fixtures/models/fake-openai.mjs"), "--port", "0", "--script", script, "--loop"], { stdio: ["ignore", "pipe", "inherit"] });
const baseURL = await new Promise((resolve) => model.stdout.on("data", (d) => { const m = /listening (\S+)/.exec(String(d)); if (m) resolve(`${m[1]}/v1`); }));
writeFileSync(path.join(tmp, "package.json"), '{"name":"bench","private":true}\n');
writeFileSync(path.join(tmp, "notes.txt"), "a line of notes\n".repeat(20));

async function open(telemetry) {
  for (const k of Object.keys(process.env)) if (k.startsWith("OTEL_")) delete process.env[k];
  if (telemetry) Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
  const config = { model: "openai:gpt-fake", providers: { openai: { baseURL, apiKey: "bench" } }, sessions: { enabled: false } };
  const host = await createHost({ cwd: tmp, userConfigDir: false, loadConfigFiles: false, trust: true, builtins: builtinPlugins, config });
  for (const k of Object.keys(process.env)) if (k.startsWith("OTEL_")) delete process.env[k];
  return host;
}
const off = await open(false);
const on = await open(true);
if (!on.plugins.some((p) => p.name === "telemetry" && p.status === "loaded")) throw new Error("telemetry plugin not loaded");

const work = {
  calls: async (host) => {
    for (let i = 0; i < calls; i++) if (!(await host.tools.call("read_file", { path: "notes.txt" })).ok) throw new Error("call failed");
  },
  runs: async (host) => {
    for (let i = 0; i < runs; i++) {
      host.session.clear();
      const r = await host.run("read the notes five times");
      if (!r.ok) throw new Error(`run failed: ${r.reason} ${r.error?.message ?? ""}`);
    }
  },
};
/** Wall and CPU milliseconds of one round (the batch exports it queued included: flushed before the clock stops). */
const time = async (fn, host) => {
  const t = performance.now();
  const c = process.cpuUsage();
  await fn(host);
  await flushTelemetry(host);
  const used = process.cpuUsage(c);
  return { wall: performance.now() - t, cpu: (used.user + used.system) / 1000 };
};
/** A host's shutdown hook flushes; here a fresh run of the exporters' batch is forced by waiting for it. */
async function flushTelemetry() {
  await new Promise((r) => setTimeout(r, 1100));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
let missed = false;
try {
  console.log(`telemetry: on / off, ${rounds} rounds (median ratio, range; ms per round median off → on)`);
  for (const [name, fn] of Object.entries(work)) {
    await fn(off);
    await fn(on); // warm up both
    const cpu = [];
    const wall = [];
    const offMs = [];
    const onMs = [];
    for (let r = 0; r < rounds; r++) {
      const [a, b] = r % 2 ? [on, off] : [off, on];
      const ta = await time(fn, a);
      const tb = await time(fn, b);
      const [tOff, tOn] = a === off ? [ta, tb] : [tb, ta];
      offMs.push(tOff.cpu);
      onMs.push(tOn.cpu);
      cpu.push(tOn.cpu / tOff.cpu);
      wall.push(tOn.wall / tOff.wall);
    }
    const ratio = median(cpu);
    missed ||= ratio > GOAL;
    const what = name === "calls" ? `${calls} gated calls` : `${runs} runs of 5 tool turns`;
    const range = (xs) => `[${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`;
    // What telemetry adds per call (or run), in CPU: the median of the rounds' differences.
    const added = median(onMs.map((on, i) => on - offMs[i])) / (name === "calls" ? calls : runs) * 1000;
    console.log(`  ${what.padEnd(24)} CPU ${ratio.toFixed(3)}x ${range(cpu)} ${median(offMs).toFixed(0)} → ${median(onMs).toFixed(0)} ms (+${added.toFixed(1)} µs per ${name === "calls" ? "call" : "run"});  wall ${median(wall).toFixed(3)}x ${range(wall)}  (goal ≤ ${GOAL}x)`);
  }
} finally {
  await Promise.all([on.close(), off.close()]);
  receiver.kill();
  model.kill();
  rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = missed ? 1 : 0;
