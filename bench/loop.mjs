#!/usr/bin/env node
/**
 * Host overhead per turn of the agent loop: `host.run` against the fake OpenAI server (each run is
 * two model turns and one tool call, with 100 extra registered tools offered to the model), against a
 * baseline measured in the same run: the very same requests (captured from the host) sent with the
 * `openai` SDK directly to an identical server, streamed and consumed. The servers run in processes
 * of their own, so their work is not counted. The difference is what the host adds per turn (context
 * assembly, the waterfall, the provider plugin's mapping, the gate with audit on, events, bookkeeping);
 * the noop tool's own time is subtracted. Reported as wall time and as this process's CPU time.
 * Goal: wall-time overhead < 5 ms per turn (median of interleaved batches).
 * Usage: node bench/loop.mjs [runs=300] [batch=10]   (after `npm run build`)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
const FAKE = path.join(ROOT, "tests", "fixtures", "models", "fake-openai.mjs");
if (!existsSync(INDEX)) {
  console.error(`bench/loop: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const { createHost } = await import(pathToFileURL(INDEX).href);
const { builtinPlugins } = await import(pathToFileURL(path.join(ROOT, "dist", "builtins.js")).href);
const { startFakeOpenAI } = await import(pathToFileURL(FAKE).href);
const { default: OpenAI } = await import("openai");

const runs = Number(process.argv[2] ?? 300);
const batch = Number(process.argv[3] ?? 10);
const GOAL_MS = 5;
const EXTRA_TOOLS = 100;

// One run = a turn with a tool call, then a turn with the answer.
const SCRIPT = [
  { text: "Looking it up.", toolCalls: [{ id: "call_bench", name: "bench_tool_7", arguments: { path: "src/index.ts", limit: 20 } }], usage: { input: 900, output: 20 } },
  { text: "Here is the answer you asked for.", usage: { input: 950, output: 12 } },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const wallMs = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const tools = Array.from({ length: EXTRA_TOOLS }, (_, i) => ({
  name: `bench_tool_${i}`,
  description: `Benchmark tool number ${i}: reads a slice of a file and returns it, for measuring host overhead.`,
  risk: "read",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string", description: "File path" }, limit: { type: "number", description: "Lines" } },
    required: ["path"],
  },
  run: () => "line 1\nline 2\n",
}));

/** The fake server as a child process (it prints `listening <url>`). */
async function startServerProcess(scriptFile) {
  const child = spawn(process.execPath, [FAKE, "--loop", "--script", scriptFile], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`fake server exited (${code})`)));
  });
  return { baseURL: `${url}/v1`, close: () => child.kill("SIGTERM") };
}

const openHost = (baseURL) =>
  createHost({
    cwd: dir,
    userConfigDir: false,
    builtins: builtinPlugins,
    plugins: [{ name: "bench", tools }],
    config: { model: "openai:gpt-fake", providers: { openai: { baseURL, apiKey: "bench" } } },
  });

const dir = mkdtempSync(path.join(os.tmpdir(), "agent-bench-loop-"));
mkdirSync(path.join(dir, ".git"));
const scriptFile = path.join(dir, "script.json");
writeFileSync(scriptFile, JSON.stringify(SCRIPT));
const servers = [];
let host;
try {
  // 1. Capture the exact bodies the host sends for one run, to replay for the baseline.
  const capture = await startFakeOpenAI(SCRIPT);
  const capHost = await openHost(capture.baseURL);
  await capHost.run("Find the answer", { model: "openai:gpt-fake" });
  const bodies = capture.requests.map((r) => r.body);
  await capHost.close();
  await capture.close();
  if (bodies.length !== 2) throw new Error(`expected 2 captured requests, got ${bodies.length}`);

  const hostServer = await startServerProcess(scriptFile);
  const baseServer = await startServerProcess(scriptFile);
  servers.push(hostServer, baseServer);

  host = await openHost(hostServer.baseURL);
  host.session.model = "openai:gpt-fake";
  let toolMs = 0;
  host.on((e) => {
    if (e.type === "tool_end") toolMs += e.durationMs;
  });
  const hostRun = async () => {
    host.session.clear();
    const r = await host.run("Find the answer");
    if (!r.ok || r.turns !== 2) throw new Error(`run failed: ${r.reason} ${r.error?.message ?? ""}`);
  };

  const client = new OpenAI({ baseURL: baseServer.baseURL, apiKey: "bench", maxRetries: 0 });
  const rawTurn = async (body) => {
    const stream = await client.chat.completions.create(body);
    let text = "";
    let args = "";
    for await (const chunk of stream) {
      const d = chunk.choices?.[0]?.delta;
      if (d?.content) text += d.content;
      for (const tc of d?.tool_calls ?? []) args += tc.function?.arguments ?? "";
    }
    if (!text && !args) throw new Error("baseline got an empty answer");
  };
  const rawRun = async () => {
    await rawTurn(bodies[0]);
    await rawTurn(bodies[1]);
  };

  for (let i = 0; i < 30; i++) {
    await hostRun();
    await rawRun();
  }

  const measure = async (fn) => {
    const w = wallMs();
    const c = cpuMs();
    for (let i = 0; i < batch; i++) await fn();
    return { wall: (wallMs() - w) / (2 * batch), cpu: (cpuMs() - c) / (2 * batch) };
  };
  const loop = { wall: [], cpu: [] };
  const base = { wall: [], cpu: [] };
  for (let done = 0; done < runs; done += batch) {
    toolMs = 0;
    const l = await measure(hostRun);
    loop.wall.push(l.wall - toolMs / (2 * batch));
    loop.cpu.push(l.cpu);
    const b = await measure(rawRun);
    base.wall.push(b.wall);
    base.cpu.push(b.cpu);
  }

  const r = {
    baseWall: median(base.wall),
    loopWall: median(loop.wall),
    baseCpu: median(base.cpu),
    loopCpu: median(loop.cpu),
  };
  const overhead = r.loopWall - r.baseWall;
  const ok = overhead < GOAL_MS;
  const rows = [
    ["raw SDK request, same body (baseline)", r.baseWall, r.baseCpu, "1.00x"],
    ["agent loop turn (host.run, tool time excluded)", r.loopWall, r.loopCpu, `${(r.loopWall / r.baseWall).toFixed(2)}x`],
    ["host overhead per turn", overhead, r.loopCpu - r.baseCpu, `goal < ${GOAL_MS} ms wall ${ok ? "✓" : "✗ MISSED"}`],
  ];
  const w = Math.max(...rows.map((x) => x[0].length));
  console.log(`bench/loop: ${runs} runs × 2 turns, ${host.tools.list().length} tools offered, audit on, Node ${process.version}`);
  console.log(`  ${"".padEnd(w)}  ms/turn (wall)  ms/turn (cpu)`);
  for (const [label, wall, cpu, note] of rows) console.log(`  ${label.padEnd(w)}  ${wall.toFixed(2).padStart(14)}  ${cpu.toFixed(2).padStart(13)}  ${note}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await host?.close();
  for (const s of servers) s.close();
  rmSync(dir, { recursive: true, force: true });
}
