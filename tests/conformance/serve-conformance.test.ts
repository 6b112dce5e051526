/**
 * The MCP conformance suite (server side, 0.1.16) against `agent mcp serve --http` through serve.mjs
 * (a proxy adds the printed bearer token; the Host header passes through, so the DNS-rebinding scenario
 * reaches the server's own check). The scenarios are those that apply to a project's registry; the
 * others need the suite's own fixture tools, prompts and resources (`node tests/conformance/serve.mjs --all`).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));

test("agent mcp serve passes the server scenarios that apply", { timeout: 240_000 }, async () => {
  const results = await new Promise<{ scenario: string; pass: boolean; passed: number; problems: string[] }[]>((resolve, reject) => {
    execFile(process.execPath, [path.join(here, "serve.mjs"), "--json"], { timeout: 230_000 }, (err, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(err ?? new Error(`no results from serve.mjs: ${stderr}`));
      }
    });
  });
  expect(results.length).toBeGreaterThanOrEqual(11);
  for (const r of results) expect({ scenario: r.scenario, pass: r.pass, problems: r.problems }).toEqual({ scenario: r.scenario, pass: true, problems: [] });
});
