#!/usr/bin/env node
/**
 * Subagents: three task calls of one turn (run at once) against the same three made one per turn (run
 * one after another), each subagent three model turns (two tool calls, then its answer), through a fake
 * model with a fixed delay per request. Measured: the time the subagents took (at once: first start to last end;
 * one per turn: the sum of each one's start to end), concurrent / sequential. Goal ≤ 0.4x.
 * And the host's overhead per subagent start: a task call whose agent answers at once from a model with no
 * delay, less the model's own time: what the task tool, runDetached and the gate add (median).
 * Goal < 5 ms. Real host, real tools, audit on; the model is an in-process provider plugin.
 * Usage: node bench/subagents.mjs [rounds=5] [delayMs=40]   (after `npm run build`)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
if (!existsSync(INDEX)) {
  console.error(`bench/subagents: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const { createHost } = await import(pathToFileURL(INDEX).href);
const { builtinPlugins } = await import(pathToFileURL(path.join(ROOT, "dist", "builtins.js")).href);

const rounds = Number(process.argv[2] ?? 5);
const delayMs = Number(process.argv[3] ?? 40);
const RATIO_GOAL = 0.4;
const START_GOAL_MS = 5;
const STARTS = 200;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const task = (id) => ({ id, name: "task", input: { description: `search ${id}`, prompt: `search ${id}`, subagent_type: "explore" } });
const hasToolResult = (req) => req.messages.some((m) => m.role === "tool");

/** The fake model: the parent asks for three agents (at once or one per turn); each agent reads, greps, answers. */
function fakeModel(mode, delay) {
  let modelMs = 0;
  const answer = (req) => {
    if (req.tools.some((t) => t.name === "task")) {
      const done = req.messages.filter((m) => m.role === "tool").length;
      if (mode === "concurrent") return done ? { text: "all found" } : { calls: [task("a"), task("b"), task("c")] };
      if (mode === "start") return done ? { text: "ok" } : { calls: [task("s")] };
      return done < 3 ? { calls: [task(`t${done}`)] } : { text: "all found" };
    }
    if (mode === "start") return { text: "found" };
    const steps = req.messages.filter((m) => m.role === "assistant").length;
    if (steps === 0) return { calls: [{ id: `r${Math.random()}`, name: "read_file", input: { path: "src/a.ts" } }] };
    if (steps === 1) return { calls: [{ id: `g${Math.random()}`, name: "grep", input: { pattern: "answer" } }] };
    return { text: "the answer is in src/a.ts" };
  };
  return {
    provider: {
      name: "fake",
      async *stream(req) {
        const t0 = performance.now();
        if (delay) await sleep(delay);
        const a = answer(req);
        if (a.text) yield { type: "text_delta", text: a.text };
        for (const call of a.calls ?? []) yield { type: "tool_call", call };
        yield { type: "usage", usage: { inputTokens: 100, outputTokens: 10 } };
        yield { type: "stop", reason: a.calls ? "tool_use" : "end_turn" };
        if (!req.tools.some((t) => t.name === "task")) modelMs += performance.now() - t0;
      },
    },
    takeModelMs: () => {
      const ms = modelMs;
      modelMs = 0;
      return ms;
    },
  };
}

const dir = mkdtempSync(path.join(os.tmpdir(), "agent-bench-subagents-"));
mkdirSync(path.join(dir, ".git"));
mkdirSync(path.join(dir, "src"));
writeFileSync(path.join(dir, "src", "a.ts"), "export const answer = 42;\n");

async function openHost(model) {
  return createHost({ cwd: dir, userConfigDir: false, builtins: builtinPlugins, plugins: [{ name: "fake-model", providers: [model.provider] }], config: { model: "fake:m" } });
}

/**
 * The time the subagents took, from the subagent events: run at once, from the first start to the last
 * end; run one per turn, the sum of each one's own start to end (the parent's turns between them left out).
 */
async function agentSpan(mode) {
  const model = fakeModel(mode, delayMs);
  const host = await openHost(model);
  const starts = [];
  const ends = [];
  host.on((e) => {
    if (e.type !== "subagent") return;
    if (e.phase === "start") starts.push(performance.now());
    if (e.phase === "end") ends.push(performance.now());
  });
  const result = await host.run("find three things");
  await host.close();
  if (!result.ok || ends.length !== 3) throw new Error(`${mode} run failed: ${result.reason} ${result.error?.message ?? ""} (${ends.length} agents ended)`);
  return mode === "concurrent" ? Math.max(...ends) - Math.min(...starts) : ends.reduce((sum, end, i) => sum + end - starts[i], 0);
}

/** Host time per subagent start: the task call's duration less the model's (no delay, one turn). */
async function startOverhead() {
  const model = fakeModel("start", 0);
  const host = await openHost(model);
  const per = [];
  let taskMs = 0;
  host.on((e) => void (e.type === "tool_end" && e.name === "task" && (taskMs = e.durationMs)));
  for (let i = 0; i < STARTS; i++) {
    await host.session.clear();
    await host.run("start one");
    // The agent's model turn ran inside the task call: what is left is the host's.
    per.push(taskMs - model.takeModelMs());
  }
  await host.close();
  return per.slice(20);
}

try {
  const ratios = [];
  const conc = [];
  const seq = [];
  for (let r = 0; r < rounds; r++) {
    const c = await agentSpan("concurrent");
    const s = await agentSpan("sequential");
    conc.push(c);
    seq.push(s);
    ratios.push(c / s);
  }
  const starts = await startOverhead();
  const ratio = median(ratios);
  const startMs = median(starts);
  const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  console.log(`subagents: 3 agents × 3 turns, ${delayMs} ms per model request, ${rounds} rounds`);
  console.log(`  concurrent       median ${median(conc).toFixed(0)} ms`);
  console.log(`  sequential       median ${median(seq).toFixed(0)} ms`);
  console.log(`  ratio            median ${ratio.toFixed(2)}x (spread ${spread}); goal ≤ ${RATIO_GOAL}x ${ratio <= RATIO_GOAL ? "met" : "MISSED"}`);
  console.log(`  start overhead   median ${startMs.toFixed(2)} ms per subagent (p90 ${[...starts].sort((a, b) => a - b)[Math.floor(starts.length * 0.9)].toFixed(2)} ms, ${starts.length} starts); goal < ${START_GOAL_MS} ms ${startMs < START_GOAL_MS ? "met" : "MISSED"}`);
  process.exitCode = ratio <= RATIO_GOAL && startMs < START_GOAL_MS ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
