#!/usr/bin/env node
/**
 * `agent mcp serve` overhead (after `npm run build`). The same call, `read_file` of a small file, made:
 *   A. in one process through the gate, as `agent call` makes it (`createHost` + `host.tools.call`);
 *   B. by an MCP SDK client over stdio to `agent mcp serve` (protocol + gate + audit);
 *   C. by the same client over stdio to a plain SDK v2 server whose tool reads the file (protocol only).
 * Calls one at a time; each round measures each path `calls` times in rotating order; the figures are
 * medians of the rounds with their range. B/A is what serving costs over an in-process call (mostly
 * the JSON-RPC round trip); B/C is what the host adds over a bare MCP server (the gate and its audit).
 * Usage: node bench/mcp-serve.mjs [rounds=5] [calls=500]
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "dist", "cli.js");
if (!existsSync(CLI)) {
  console.error('bench/mcp-serve: dist/ is missing; run "npm run build" first.');
  process.exit(2);
}
const rounds = Number(process.argv[2] ?? 5) || 5;
const calls = Number(process.argv[3] ?? 500) || 500;
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");

const tmp = mkdtempSync(path.join(os.tmpdir(), "bench-mcp-serve-"));
writeFileSync(path.join(tmp, "package.json"), '{"name":"bench","private":true}\n');
writeFileSync(path.join(tmp, "notes.txt"), "a line of notes\n".repeat(20));
const plainServer = path.join(tmp, "plain-server.mjs");
writeFileSync(
  plainServer,
  `import { readFile } from "node:fs/promises";
import { Server } from ${JSON.stringify(pathToFileURL(path.join(ROOT, "node_modules/@modelcontextprotocol/server/dist/index.mjs")).href)};
import { StdioServerTransport } from ${JSON.stringify(pathToFileURL(path.join(ROOT, "node_modules/@modelcontextprotocol/server/dist/stdio.mjs")).href)};
const server = new Server({ name: "plain", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler("tools/list", () => ({ tools: [{ name: "read_file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }] }));
server.setRequestHandler("tools/call", async (r) => ({ content: [{ type: "text", text: await readFile(r.params.arguments.path, "utf8") }] }));
await server.connect(new StdioServerTransport());
`,
);

const env = { ...process.env, AGENT_TRUST: "1", AGENT_CONFIG_HOME: path.join(tmp, ".user") };
for (const k of Object.keys(env)) if (k.startsWith("OTEL_")) delete env[k];
async function stdioClient(command, args) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, cwd: tmp, env, stderr: "ignore" }));
  return client;
}

const { createHost } = await import(pathToFileURL(path.join(ROOT, "dist", "index.js")).href);
const { builtinPlugins } = await import(pathToFileURL(path.join(ROOT, "dist", "builtins.js")).href);
const host = await createHost({ cwd: tmp, userConfigDir: false, builtins: builtinPlugins, trust: true });
const served = await stdioClient(process.execPath, [CLI, "mcp", "serve"]);
const plain = await stdioClient(process.execPath, [plainServer]);

const paths = {
  "in-process (agent call)": async () => {
    const r = await host.tools.call("read_file", { path: "notes.txt" });
    if (!r.ok) throw new Error(r.output);
  },
  "agent mcp serve (stdio)": async () => {
    const r = await served.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  },
  "plain SDK server (stdio)": async () => {
    const r = await plain.callTool({ name: "read_file", arguments: { path: path.join(tmp, "notes.txt") } });
    if (r.isError) throw new Error("plain call failed");
  },
};
const names = Object.keys(paths);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
async function perCall(fn) {
  const t = performance.now();
  for (let i = 0; i < calls; i++) await fn();
  return ((performance.now() - t) * 1000) / calls; // µs per call
}
try {
  for (const fn of Object.values(paths)) for (let i = 0; i < 100; i++) await fn(); // warm up
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const n of order) samples[n].push(await perCall(paths[n]));
  }
  const [inProc, serve, bare] = names.map((n) => median(samples[n]));
  console.log(`mcp-serve: ${rounds} rounds × ${calls} calls of read_file, one at a time (median µs per call, range)`);
  for (const n of names) console.log(`  ${n.padEnd(26)} ${median(samples[n]).toFixed(0).padStart(7)} µs  [${Math.min(...samples[n]).toFixed(0)}–${Math.max(...samples[n]).toFixed(0)}]`);
  console.log(`  serve / in-process: ${(serve / inProc).toFixed(2)}x   serve / plain SDK server: ${(serve / bare).toFixed(2)}x`);
} finally {
  await Promise.all([served.close(), plain.close(), host.close()]);
  rmSync(tmp, { recursive: true, force: true });
}
