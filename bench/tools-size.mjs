#!/usr/bin/env node
/**
 * What the tool set costs every model request: the bytes of the first request the fake OpenAI server
 * receives from `agent run` (the real SDK's wire JSON: tool definitions plus the system prompt), with
 * the built-in tools only (7), and with an MCP server adding 100 and 300 tools, tool search off and on
 * (`toolSearch.mode`). "MCP bytes" is what the MCP tools add to the request with no server (the
 * built-in tools and the system prompt are there either way); the ratio compares it with search off.
 * Goal: 300 tools with search on add under 10% of what they add with search off. Tokens are estimated
 * at 4 bytes each.
 * Usage: node bench/tools-size.mjs (after `npm run build`). Exit 1 when the goal is missed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLI = path.join(ROOT, "dist", "cli.js");
const MANY = path.join(ROOT, "tests", "fixtures", "mcp", "many-tools.mjs");
if (!existsSync(CLI)) {
  console.error('bench/tools-size: dist/ is missing; run "npm run build" first.');
  process.exit(2);
}
const { startFakeOpenAI } = await import(pathToFileURL(path.join(ROOT, "tests", "fixtures", "models", "fake-openai.mjs")).href);

const base = mkdtempSync(path.join(os.tmpdir(), "agent-bench-tools-size-"));
const configHome = path.join(base, "user-config");
mkdirSync(configHome);
// The bench's own projects are trusted for the run (their MCP servers start only once trusted).
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AGENT_") && k !== "NODE_OPTIONS")), AGENT_TRUST: "1" };

/** The first request's parts for `mcpTools` MCP tools (0: no server) with tool search in `mode`. */
async function firstRequest(mcpTools, mode) {
  const srv = await startFakeOpenAI([{ text: "done" }]);
  const dir = path.join(base, `p-${mcpTools}-${mode}`);
  mkdirSync(path.join(dir, ".git"), { recursive: true });
  const servers = mcpTools ? { many: { command: process.execPath, args: [MANY], ...(mcpTools < 300 ? { includeTools: [...Array(mcpTools).keys()].map((i) => `tool_${i}`) } : {}) } } : {};
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "x" } }, mcpServers: servers, toolSearch: { mode } }));
  // Spawned, not spawnSync: the fake server answers from this process's event loop.
  const r = await new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "run", "-p", "hello"], { cwd: dir, env: { ...env, AGENT_CONFIG_HOME: configHome, NO_COLOR: "1" }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stderr }));
  });
  await srv.close();
  if (r.status !== 0) throw new Error(`agent run exited ${r.status}: ${r.stderr}`);
  const body = srv.requests[0].body;
  const system = body.messages.filter((m) => m.role === "system").map((m) => m.content).join("");
  return { tools: body.tools?.length ?? 0, toolBytes: JSON.stringify(body.tools ?? []).length, systemBytes: system.length, total: JSON.stringify(body).length };
}

let missed = false;
try {
  console.log(`bench/tools-size: first request of agent run, bytes on the wire (Node ${process.version})`);
  console.log(`${"MCP tools".padEnd(10)}${"search".padEnd(8)}${"tools sent".padStart(11)}${"tool bytes".padStart(12)}${"system bytes".padStart(14)}${"request bytes".padStart(15)}${"~tokens".padStart(9)}${"MCP bytes".padStart(11)}${"ratio".padStart(8)}`);
  let none;
  for (const n of [0, 100, 300]) {
    const off = await firstRequest(n, "off");
    const on = await firstRequest(n, "auto");
    none ??= off.total;
    for (const [mode, r] of [["off", off], ["auto", on]]) {
      const added = r.total - none;
      const ratio = n === 0 ? 1 : added / (off.total - none);
      console.log(
        `${String(n).padEnd(10)}${mode.padEnd(8)}${String(r.tools).padStart(11)}${String(r.toolBytes).padStart(12)}${String(r.systemBytes).padStart(14)}` +
          `${String(r.total).padStart(15)}${String(Math.round(r.total / 4)).padStart(9)}${String(added).padStart(11)}${`${ratio.toFixed(3)}x`.padStart(8)}`,
      );
      if (n === 300 && mode === "auto" && ratio >= 0.1) missed = true;
    }
  }
  console.log(missed ? "\n300 tools with search: MISSED the goal (MCP bytes < 0.10x of search off)" : "\n300 tools with search: ok (goal: MCP bytes < 0.10x of search off)");
} finally {
  rmSync(base, { recursive: true, force: true });
}
process.exit(missed ? 1 : 0);
