#!/usr/bin/env node
/**
 * What configured MCP servers cost work that does not need them, against the same work with none,
 * measured in the same run (after `npm run build`):
 *
 * 1. `agent call read_file` with 0, 5 and 25 `server-memory` stdio servers in `.mcp.json`, cold (no
 *    tool cache) and warm (the cache written by an earlier run). Goal: within 1.1x of 0 servers.
 * 2. `agent run -p …` against the fake OpenAI server: time from spawn to the first model request, with
 *    the same server counts, cold and warm. Goal: warm within 1.1x of 0 servers.
 *
 * Each figure is the median of `runs` runs; the cases of one round run back to back so machine noise
 * hits all alike. Peak memory is the agent process's own (max RSS, servers excluded), from a preload
 * that records it at exit.
 * Usage: node bench/first-turn.mjs [runs=5] [counts=0,5,25]. Exit 1 when a goal is missed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "dist", "cli.js");
const MEMORY = path.join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
if (!existsSync(CLI)) {
  console.error('bench/first-turn: dist/ is missing; run "npm run build" first.');
  process.exit(2);
}
const { startFakeOpenAI } = await import(pathToFileURL(path.join(ROOT, "tests", "fixtures", "models", "fake-openai.mjs")).href);

const runs = Number(process.argv[2] ?? 5) || 5;
const counts = (process.argv[3] ?? "0,5,25").split(",").map(Number);
const GOAL = 1.1;

const base = mkdtempSync(path.join(os.tmpdir(), "agent-bench-first-turn-"));
const rssPreload = path.join(base, "rss.mjs");
writeFileSync(rssPreload, 'import { writeFileSync } from "node:fs";\nprocess.on("exit", () => { if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)); });\n');

/** A project with `n` server-memory servers (each with its own memory file). */
function project(n) {
  const dir = path.join(base, `p${n}`);
  mkdirSync(path.join(dir, ".git"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), '{ "name": "bench", "private": true }\n');
  const servers = {};
  for (let i = 0; i < n; i++) servers[`mem${i}`] = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: path.join(dir, `memory-${i}.jsonl`) } };
  writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ model: "openai:gpt-fake", permissions: { mode: "bypass" } }));
  return dir;
}

const configHome = path.join(base, "user-config");
mkdirSync(configHome);
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AGENT_") && k !== "NODE_OPTIONS" && k !== "OPENAI_BASE_URL"));

/** Run the CLI; resolves with wall ms, the ms until `firstRequest()` (if given) and max RSS (KiB). */
function runAgent(dir, args, extraEnv = {}, firstRequest) {
  const rssFile = path.join(base, `rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  // The bench's own projects are trusted for the run (their .mcp.json servers start only once trusted).
  const env = { ...cleanEnv, AGENT_CONFIG_HOME: configHome, NO_COLOR: "1", BENCH_RSS_FILE: rssFile, AGENT_TRUST: "1", ...extraEnv };
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["--import", pathToFileURL(rssPreload).href, CLI, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout.resume();
    let firstMs;
    firstRequest?.then((at) => (firstMs = at - t0));
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) return reject(new Error(`agent ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`));
      const rss = existsSync(rssFile) ? Number(readFileSync(rssFile, "utf8")) : NaN;
      resolve({ ms, firstMs, rss });
    });
  });
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const clearCache = (dir) => rmSync(path.join(dir, ".agent", "cache"), { recursive: true, force: true });

// A fake model server that notes when each request arrives and answers with text (no tool calls).
let notify;
const answer = () => {
  notify?.(performance.now());
  return { text: "done" };
};
const srv = await startFakeOpenAI([answer], { loop: true });

const projects = Object.fromEntries(counts.map((n) => [n, project(n)]));
const results = { call: {}, run: {} };
for (const n of counts) for (const t of ["cold", "warm"]) for (const k of ["call", "run"]) (results[k][`${n}/${t}`] = { ms: [], first: [], rss: [] });

try {
  for (let round = 0; round < runs + 1; round++) {
    for (const n of counts) {
      const dir = projects[n];
      for (const temp of ["cold", "warm"]) {
        if (temp === "cold") clearCache(dir);
        const call = await runAgent(dir, ["call", "read_file", '{"path":"package.json"}']);
        if (temp === "cold") clearCache(dir);
        const first = new Promise((r) => (notify = r));
        const run = await runAgent(dir, ["run", "-p", "hello", "--output-format", "json"], { OPENAI_BASE_URL: srv.baseURL, OPENAI_API_KEY: "x" }, first);
        if (round === 0) continue; // warm-up round (fills the OS cache and, for "warm", the tool cache)
        for (const [k, r] of [["call", call], ["run", run]]) {
          results[k][`${n}/${temp}`].ms.push(r.ms);
          results[k][`${n}/${temp}`].first.push(r.firstMs);
          results[k][`${n}/${temp}`].rss.push(r.rss);
        }
      }
    }
  }
} finally {
  await srv.close();
  rmSync(base, { recursive: true, force: true });
}

let missed = false;
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "-");
const table = (title, kind, metric, goalFor) => {
  console.log(`\n${title}`);
  console.log(`${"servers".padEnd(9)}${"cache".padEnd(7)}${"median ms".padStart(10)}${"ratio".padStart(8)}${"max RSS MiB".padStart(13)}  goal`);
  for (const temp of ["cold", "warm"]) {
    const zero = median(results[kind][`0/${temp}`]?.[metric] ?? []);
    for (const n of counts) {
      const r = results[kind][`${n}/${temp}`];
      const ms = median(r[metric]);
      const ratio = ms / zero;
      const goal = goalFor(temp, n);
      const ok = goal === undefined || ratio <= goal;
      if (!ok) missed = true;
      console.log(`${String(n).padEnd(9)}${temp.padEnd(7)}${fmt(ms).padStart(10)}${`${fmt(ratio, 2)}x`.padStart(8)}${fmt(median(r.rss) / 1024, 1).padStart(13)}  ${goal === undefined ? "" : `≤ ${goal}x ${ok ? "ok" : "MISSED"}`}`);
    }
  }
};
console.log(`bench/first-turn: ${runs} runs per case, server-memory stdio servers, Node ${process.version}`);
table("agent call read_file (wall time)", "call", "ms", (_t, n) => (n === 0 ? undefined : GOAL));
table("agent run: spawn to the first model request", "run", "first", (t, n) => (n === 0 || t === "cold" ? undefined : GOAL));
process.exit(missed ? 1 : 0);
