/**
 * The MCP conformance suite (client side) against the built `agent` CLI, through the adapter in
 * client.mjs (a `.mcp.json` per scenario, then `agent mcp list`, `agent mcp login` when a server
 * needs it, `agent call`). CI builds before testing. Each scenario must have checks, and pass them.
 * Both sets in full (26 scenarios of 0.1.16 at the 2025 wire, 32 of 0.2.0-alpha.12 at 2026-07-28):
 * `node tests/conformance/run.mjs --all`.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));

interface ScenarioResult {
  scenario: string;
  pass: boolean;
  passed: number;
  failed: number;
  warnings: number;
  problems: string[];
  output?: string;
}

function run(scenarios: string[], set = "2025"): Promise<ScenarioResult[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(here, "run.mjs"), "--json", "--set", set, ...scenarios], { timeout: 120_000, env: { ...process.env, CONFORMANCE_JOBS: "2" } }, (err, stdout, stderr) => {
      // Exit code 1 just means a scenario failed: the JSON says which.
      try {
        resolve(JSON.parse(stdout) as ScenarioResult[]);
      } catch {
        reject(err ?? new Error(`no results from run.mjs: ${stderr}`));
      }
    });
  });
}

const SCENARIOS = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  // Authorization: discovery from WWW-Authenticate, step-up on 403, private_key_jwt client credentials, cross-app access.
  "auth/metadata-var1",
  "auth/scope-step-up",
  "auth/client-credentials-jwt",
  "auth/cross-app-access-complete-flow",
];

describe("MCP conformance (client), through the CLI", () => {
  it(`passes ${SCENARIOS.join(", ")}`, { timeout: 120_000 }, async () => {
    const results = await run(SCENARIOS);
    const summary = Object.fromEntries(results.map((r) => [r.scenario, { pass: r.pass, failed: r.failed, problems: r.problems, output: r.output }]));
    for (const r of results) {
      expect(summary[r.scenario]).toMatchObject({ pass: true, failed: 0 });
      expect(r.passed).toBeGreaterThan(0);
    }
    // Every default of the elicitation form was applied (string, integer, number, enum, boolean).
    expect(results.find((r) => r.scenario === "elicitation-sep1034-client-defaults")!.passed).toBe(5);
    expect(results.map((r) => r.scenario)).toEqual(SCENARIOS);
  });
});

/** The 2026-07-28 wire (0.2.0-alpha.12's requirement set): stateless requests, standard headers, RFC 9207 iss, a real tool call. */
const MODERN = ["tools_call", "request-metadata", "http-standard-headers", "auth/iss-supported"];

describe("MCP conformance (client) at 2026-07-28, through the CLI", () => {
  it(`passes ${MODERN.join(", ")}`, { timeout: 120_000 }, async () => {
    const results = await run(MODERN, "2026-07-28");
    for (const r of results) expect({ scenario: r.scenario, pass: r.pass, problems: r.problems }).toMatchObject({ scenario: r.scenario, pass: true, problems: [] });
    expect(results.map((r) => r.scenario)).toEqual(MODERN);
  });
});
