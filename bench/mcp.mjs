#!/usr/bin/env node
/**
 * MCP plugin benchmarks, each against a plain-SDK baseline measured in the same run (after `npm run build`):
 *
 * 1. Time until tools are ready with 1, 5 and 10 `server-memory` servers: `agent mcp list --json`
 *    (the built CLI, spawned) against a plain SDK script (this file with --baseline, spawned) that
 *    connects the same servers in parallel and lists their tools. Measured from spawn to the
 *    first byte of output (both print once every server's tools are listed). Goal: ≤ 1.15x.
 * 2. Calls per second to server-everything's `echo`: through the full gate (`host.tools.call`,
 *    audit on) against the raw SDK `Client.callTool`, with 1 and 16 calls in flight. Goal: ≥ 0.9x.
 *
 * Usage: node bench/mcp.mjs [rounds=5] [calls=2000]. Exit 1 when a goal is missed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "dist", "cli.js");
const INDEX = path.join(ROOT, "dist", "index.js");
const SERVERS = path.join(ROOT, "node_modules", "@modelcontextprotocol");
const MEMORY = path.join(SERVERS, "server-memory", "dist", "index.js");
const EVERYTHING = path.join(SERVERS, "server-everything", "dist", "index.js");

const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");

// --- the plain SDK script of benchmark 1 (spawned as its own process) ---------------------------
if (process.argv[2] === "--baseline") {
  const servers = JSON.parse(process.argv[3]);
  const clients = await Promise.all(
    Object.values(servers).map(async (s) => {
      const client = new Client({ name: "baseline", version: "1.0.0" });
      await client.connect(new StdioClientTransport({ command: s.command, args: s.args, env: s.env, stderr: "ignore" }));
      const { tools } = await client.listTools();
      return { client, tools: tools.length };
    }),
  );
  process.stdout.write(`${JSON.stringify(clients.map((c) => c.tools))}\n`);
  await Promise.all(clients.map((c) => c.client.close()));
  process.exit(0);
}

if (!existsSync(CLI) || !existsSync(INDEX)) {
  console.error('bench/mcp: dist/ is missing; run "npm run build" first.');
  process.exit(2);
}
const rounds = Number(process.argv[2] ?? 5) || 5;
const calls = Number(process.argv[3] ?? 2000) || 2000;
const READY_GOAL = 1.15;
const CALLS_GOAL = 0.9;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n, digits = 0) => n.toFixed(digits).padStart(8);

/** Spawn a process; resolve with ms from spawn to its first stdout byte, once it has exited. */
function timeToOutput(args, options) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first;
    let out = "";
    let err = "";
    const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => {
      first ??= performance.now() - started;
      out += d;
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 && first !== undefined ? resolve({ ms: first, out }) : reject(new Error(`${args.join(" ")} exited ${code}: ${err}`))));
  });
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "agent-bench-mcp-"));
let missed = false;
try {
  // --- 1. time until tools are ready ------------------------------------------------------------
  console.log(`\nMCP: time until tools are ready (${rounds} rounds, median; server-memory over stdio)`);
  console.log(`${"servers".padEnd(8)} ${"agent ms".padStart(8)} ${"sdk ms".padStart(8)} ${"ratio".padStart(8)}  goal ≤ ${READY_GOAL}x`);
  for (const n of [1, 5, 10]) {
    const project = path.join(tmp, `ready-${n}`);
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, "package.json"), "{}");
    const servers = {};
    for (let i = 0; i < n; i++) {
      servers[`memory${i}`] = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: path.join(project, `memory${i}.jsonl`) } };
    }
    writeFileSync(path.join(project, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
    const env = { ...process.env, AGENT_CONFIG_HOME: path.join(project, "no-user-config") };
    const agentMs = [];
    const sdkMs = [];
    // Interleaved, after one unmeasured warm-up of each (file system caches).
    for (let r = -1; r < rounds; r++) {
      const a = await timeToOutput([CLI, "mcp", "list", "--json"], { cwd: project, env });
      const b = await timeToOutput([fileURLToPath(import.meta.url), "--baseline", JSON.stringify(servers)], { cwd: project, env });
      const listed = JSON.parse(a.out);
      if (listed.length !== n || listed.some((s) => s.status !== "connected")) throw new Error(`agent mcp list: not every server connected: ${a.out}`);
      if (r >= 0) {
        agentMs.push(a.ms);
        sdkMs.push(b.ms);
      }
    }
    const ratio = median(agentMs) / median(sdkMs);
    if (ratio > READY_GOAL) missed = true;
    console.log(`${String(n).padEnd(8)} ${fmt(median(agentMs))} ${fmt(median(sdkMs))} ${fmt(ratio, 2)}x ${ratio <= READY_GOAL ? "ok" : "MISSED"}`);
  }

  // --- 2. calls per second ----------------------------------------------------------------------
  const { createHost } = await import(pathToFileURL(INDEX).href);
  const project = path.join(tmp, "calls");
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, "package.json"), "{}");
  const host = await createHost({
    cwd: project,
    userConfigDir: false,
    loadConfigFiles: false,
    permissionMode: "bypass",
    config: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
  });
  const raw = new Client({ name: "bench", version: "1.0.0" });
  await raw.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
  try {
    if (!host.tools.get("mcp__everything__echo")) throw new Error(`echo not registered: ${host.problems.map((p) => p.message).join("; ")}`);
    const viaGate = async () => {
      const r = await host.tools.call("mcp__everything__echo", { message: "hello" });
      if (!r.ok) throw new Error(r.output);
    };
    const viaSdk = async () => {
      const r = await raw.callTool({ name: "echo", arguments: { message: "hello" } });
      if (r.isError) throw new Error("raw call failed");
    };
    /** Calls per second for `total` calls with `inFlight` at a time. */
    const rate = async (fn, total, inFlight) => {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next++ < total) await fn();
        }),
      );
      return (total / (performance.now() - started)) * 1000;
    };
    for (const fn of [viaGate, viaSdk]) await rate(fn, 300, 4); // warm up both paths

    console.log(`\nMCP: calls per second to server-everything echo (${calls} calls, ${rounds} rounds, median; audit on)`);
    console.log(`${"in flight".padEnd(9)} ${"gate/s".padStart(8)} ${"sdk/s".padStart(8)} ${"ratio".padStart(8)}  goal ≥ ${CALLS_GOAL}x`);
    for (const inFlight of [1, 16]) {
      const gate = [];
      const sdk = [];
      for (let r = 0; r < rounds; r++) {
        sdk.push(await rate(viaSdk, calls, inFlight));
        gate.push(await rate(viaGate, calls, inFlight));
      }
      const ratio = median(gate) / median(sdk);
      if (ratio < CALLS_GOAL) missed = true;
      console.log(`${String(inFlight).padEnd(9)} ${fmt(median(gate))} ${fmt(median(sdk))} ${fmt(ratio, 2)}x ${ratio >= CALLS_GOAL ? "ok" : "MISSED"}`);
    }
  } finally {
    await raw.close();
    await host.close();
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = missed ? 1 : 0;
