/**
 * A plugin whose `setup` never settles costs a command its bound (15 s by default, not the 120 s of
 * pluginTimeouts.startupMs's register hooks), is reported with the plugin, the bound and the key
 * that raises it, and the rest of the host works. MCP servers connect outside setup: a bound on
 * setup never cuts them.
 */
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { DEFAULT_SETUP_MS } from "../../core/plugins/prepare.js";
import { runCli } from "../helpers/cli.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { DIST_INDEX_URL, REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

const HANG = path.join(REPO_ROOT, "tests", "fixtures", "plugins", "hang.mjs");
const SLOW_START = path.join(REPO_ROOT, "tests", "fixtures", "mcp", "slow-start.mjs");
const PING_PLUGIN = `import { definePlugin } from ${JSON.stringify(DIST_INDEX_URL)};
export default definePlugin({
  name: "ping",
  tools: [{ name: "ping", description: "Answers pong", risk: "read", inputSchema: { type: "object" }, run: () => "pong" }],
});
`;

afterAll(async () => {
  await closeHosts();
  cleanupTemp();
});

describe("a plugin setup that never settles", () => {
  test("is reported with its bound and the key that raises it; another plugin's tool still works", async () => {
    const p = tempProject({ "ping.mjs": PING_PLUGIN });
    p.write(".agentrc.json", { pluginTimeouts: { startupMs: 300 }, plugins: [[HANG, { setup: true }], "./ping.mjs"] });
    const r = await runCli(["call", "ping", "{}"], { cwd: p.dir, configHome: p.configHome, timeoutMs: 60_000 });
    expect(r.stderr).toContain("Plugin hang failed in setup: setup did not settle within 300 ms (pluginTimeouts.startupMs raises it). Continuing without it.");
    expect(r.stdout).toContain("pong");
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test(`is bounded by ${DEFAULT_SETUP_MS} ms when pluginTimeouts.startupMs is not set`, async () => {
    const echo = { name: "echo", tools: [{ name: "echo", description: "echo", risk: "read" as const, inputSchema: { type: "object" as const }, run: () => "x" }] };
    const hang = (await import(HANG)).default({ setup: true });
    const { host } = await testHost({ plugins: [hang, echo] });
    expect(host.problems.map((x) => x.message)).toContain(`Plugin hang failed in setup: setup did not settle within ${DEFAULT_SETUP_MS} ms (pluginTimeouts.startupMs raises it). Continuing without it.`);
    expect(await host.tools.call("echo", {})).toMatchObject({ ok: true, output: "x" });
  }, DEFAULT_SETUP_MS * 4);

  test("an MCP server slower to start than the setup bound still connects", async () => {
    const p = tempProject();
    p.write(".agentrc.json", { pluginTimeouts: { startupMs: 300 }, permissions: { allow: ["mcp__slow__echo"] } });
    // It answers initialize only after 1.5 s, five times the bound on setup.
    p.write(".mcp.json", { mcpServers: { slow: { command: process.execPath, args: [SLOW_START], env: { SLOW_START_MS: "1500" } } } });
    const r = await runCli(["call", "mcp__slow__echo", '{"text":"hi"}'], { cwd: p.dir, configHome: p.configHome, timeoutMs: 60_000 });
    expect(r.stdout).toContain("echo:hi");
    expect(r.stderr).not.toMatch(/failed in setup|did not settle/);
    expect(r.code).toBe(0);
  });
});
