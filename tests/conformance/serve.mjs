#!/usr/bin/env node
// Runs server scenarios of the MCP conformance suite against `agent mcp serve --http` (build in dist/;
// run `npm run build` first).   node tests/conformance/serve.mjs [--json] [--all | scenario...]
// The suite sends no Authorization header: a proxy on 127.0.0.1 adds the token the server printed and
// passes everything else (the Host header included) through as it came. The default scenarios are those
// that apply to a server whose tools, prompts and resources are a project's, not the suite's fixtures.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const suite = path.join(repo, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
export const SERVER_SCENARIOS = ["server-initialize", "logging-set-level", "ping", "completion-complete", "tools-list", "tools-call-simple-text", "tools-call-error", "resources-list", "prompts-list", "dns-rebinding-protection", "server-sse-multiple-streams"];

/** `agent mcp serve --http 127.0.0.1:0` in a small project; resolves with its URL, token and a stop function. */
export async function startServe() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-serve-conformance-"));
  writeFileSync(path.join(dir, "package.json"), '{"name":"serve-conformance","private":true}\n');
  mkdirSync(path.join(dir, ".agent/commands"), { recursive: true });
  writeFileSync(path.join(dir, ".agent/commands/review.md"), "---\ndescription: review a file\n---\nReview $ARGUMENTS.\n");
  const env = { ...process.env, AGENT_TRUST: "1", AGENT_CONFIG_HOME: path.join(dir, ".user") };
  const child = spawn(process.execPath, [path.join(repo, "dist/cli.js"), "mcp", "serve", "--http", "127.0.0.1:0"], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const ready = await new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(err)?.[1];
      const token = /Bearer (\S+)/.exec(err)?.[1];
      if (url && token) resolve({ url, token });
    });
    child.on("exit", (code) => reject(new Error(`agent mcp serve exited ${code}: ${err}`)));
  });
  return { ...ready, stop: () => (child.kill("SIGTERM"), rmSync(dir, { recursive: true, force: true })) };
}

/** A proxy that adds `Authorization: Bearer <token>` and changes nothing else. */
export async function authProxy(target, token) {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
  return { url: `http://localhost:${proxy.address().port}/mcp`, close: () => proxy.close() };
}

function runScenario(url, scenario, outDir) {
  const args = ["--import", path.join(here, "node20-globsync.mjs"), suite, "server", "--url", url, "--scenario", scenario, "-o", outDir];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: outDir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (exitCode) => resolve({ exitCode, output }));
  });
}

export async function runServerConformance(scenarios = SERVER_SCENARIOS) {
  const serve = await startServe();
  const proxy = await authProxy(serve.url, serve.token);
  const results = [];
  try {
    for (const scenario of scenarios) {
      const outDir = mkdtempSync(path.join(os.tmpdir(), "agent-conformance-out-"));
      try {
        const { exitCode, output } = await runScenario(proxy.url, scenario, outDir);
        const file = readdirSync(outDir, { recursive: true }).map(String).find((f) => path.basename(f) === "checks.json");
        const checks = file ? JSON.parse(readFileSync(path.join(outDir, file), "utf8")) : [];
        const count = (s) => checks.filter((c) => c.status === s).length;
        const passed = count("SUCCESS");
        const failed = count("FAILURE");
        results.push({
          scenario,
          pass: passed > 0 && failed === 0,
          passed,
          failed,
          warnings: count("WARNING"),
          exitCode,
          problems: checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING").map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`),
          output: passed > 0 && failed === 0 ? undefined : output.slice(-3000),
        });
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    }
  } finally {
    proxy.close();
    serve.stop();
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const json = process.argv.includes("--json");
  const names = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const all = process.argv.includes("--all");
  const list = all ? (await import("node:child_process")).execFileSync(process.execPath, ["--import", path.join(here, "node20-globsync.mjs"), suite, "list"], { encoding: "utf8" }) : "";
  const scenarios = all ? [...list.slice(0, list.indexOf("Client scenarios")).matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]) : names.length ? names : SERVER_SCENARIOS;
  const results = await runServerConformance(scenarios);
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const r of results) {
      process.stdout.write(`${r.pass ? "PASS" : "FAIL"}  ${r.scenario}: ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings\n`);
      for (const p of r.problems) process.stdout.write(`      ${p}\n`);
      if (r.output && process.env.CONFORMANCE_VERBOSE) process.stdout.write(`${r.output}\n`);
    }
    process.stdout.write(`\n${results.filter((r) => r.pass).length}/${results.length} server scenarios passed\n`);
  }
  process.exitCode = results.every((r) => r.pass) ? 0 : 1;
}
