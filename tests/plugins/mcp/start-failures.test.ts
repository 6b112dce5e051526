/**
 * Servers that cannot serve their tools, as a user meets them through the built CLI: one that needs a
 * login names the login (not "Unknown tool"), one that dies at start-up is started once and named with
 * the cause (its thrown error, not the last lines of its stack), and a 2025 server that exits on the
 * 2026-07-28 probe is started again for the 2025 handshake, once.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, fakeOpenAiProject, runCli } from "../../cli/run-helpers.js";
import { agent, project } from "./_cli.js";
import { cleanup, FIXTURES, REPO, startServer, tempDir } from "./_helpers.js";

afterAll(cleanup);

const OAUTH = path.join(REPO, "tests/fixtures/oauth/server.mjs");
const NEEDS_LOGIN = "the MCP server 'remote' needs a login: run `agent mcp login remote`";

async function oauthUrl(): Promise<string> {
  const { port } = await startServer([OAUTH], /listening (\d+)/);
  return `http://127.0.0.1:${port}/mcp`;
}

/** The file each start of a fixture appends `start <pid>` to, and how many starts it holds. */
function spawnLog(): { file: string; starts(): number } {
  const file = path.join(tempDir("agent-mcp-spawns-"), "spawns.log");
  return { file, starts: () => readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("start ")).length };
}

describe("a server that needs a login", () => {
  it("agent call names the login and exits with the auth code (4), not Unknown tool (2)", { timeout: 60_000 }, async () => {
    const p = project({ ".mcp.json": { mcpServers: { remote: { type: "http", url: await oauthUrl() } } } });
    const call = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}"]);
    expect(call.code).toBe(4);
    expect(call.stderr).toContain(NEEDS_LOGIN);
    expect(call.stderr).not.toContain("Unknown tool");
    const json = await agent(p, ["--permission-mode", "bypass", "call", "mcp__remote__whoami", "{}", "--json"]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, output: NEEDS_LOGIN, error: { code: "E_TOOL_NEEDS_AUTH" } });
  });

  it("the model calling one of its tools is told which login to run", { timeout: 60_000 }, async () => {
    const seen: string[] = [];
    const { project: proj } = await fakeOpenAiProject(
      [
        { toolCalls: [{ id: "c1", name: "mcp__remote__whoami", arguments: {} }] },
        (body: { messages: { role: string; content: string }[] }) => (seen.push(body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? ""), { text: "Please log in." }),
      ],
      { model: "openai:gpt-fake", mcpServers: { remote: { type: "http", url: await oauthUrl() } } },
    );
    const r = await runCli(["--permission-mode", "bypass", "run", "-p", "who am I?"], { cwd: proj.dir, env: cleanEnv({}, proj.dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(seen[0]).toContain(NEEDS_LOGIN);
    expect(seen[0]).not.toContain("Unknown tool");
  });
});

describe("a server that fails at start-up", () => {
  it("is started once per command, and mcp list, doctor, call and run name the cause", { timeout: 60_000 }, async () => {
    const spawns = spawnLog();
    const kills = spawnLog();
    const die = { command: process.execPath, args: [path.join(FIXTURES, "die-at-start.mjs")], env: { SPAWN_LOG: spawns.file } };
    const p = project({
      ".mcp.json": {
        mcpServers: {
          die,
          missing: { command: "agent-test-no-such-command" },
          killed: { command: "sh", args: ["-c", 'echo "start $$" >> "$SPAWN_LOG"; kill -9 $$'], env: { SPAWN_LOG: kills.file } },
        },
      },
    });
    const cause = "the server process exited with code 1 before answering initialize: Error: DATABASE_URL is not set";

    const list = await agent(p, ["mcp", "list", "--json"]);
    const servers = Object.fromEntries((JSON.parse(list.stdout) as { name: string; error?: string }[]).map((s) => [s.name, s.error]));
    expect(servers.die).toBe(cause);
    expect(servers.missing).toBe('could not start "agent-test-no-such-command": command not found (is it installed and on PATH?)');
    expect(servers.killed).toBe("the server process was killed by SIGKILL before answering initialize");
    // Once: a server that died of its own error (or was killed) is not started again for the 2025 handshake.
    expect(spawns.starts()).toBe(1);
    expect(kills.starts()).toBe(1);

    const doctor = await agent(p, ["doctor"]);
    expect(doctor.stdout).toContain(`MCP server die failed to connect: ${cause}. Continuing without die tools.`);
    expect(spawns.starts()).toBe(2);

    const call = await agent(p, ["--permission-mode", "bypass", "call", "mcp__die__anything", "{}"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain(`the MCP server 'die' failed to start: ${cause}`);
    // Said once: the call's error gives the cause, so the start-up notice with the same cause is not printed too.
    expect(call.stderr.split(cause)).toHaveLength(2);
    expect(call.stderr).not.toContain("Unknown tool");
    expect(spawns.starts()).toBe(3);

    const { project: proj } = await fakeOpenAiProject([{ text: "Hello." }], { model: "openai:gpt-fake", mcpServers: { die } });
    const run = await runCli(["run", "-p", "hi"], { cwd: proj.dir, env: cleanEnv({}, proj.dir) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`MCP server die failed to connect: ${cause}.`);
    expect(spawns.starts()).toBe(4);
  });

  it("a 2025 server that exits on the server/discover probe is started again for the 2025 handshake, once", { timeout: 60_000 }, async () => {
    const spawns = spawnLog();
    const p = project({ ".mcp.json": { mcpServers: { old: { command: process.execPath, args: [path.join(FIXTURES, "exit-on-probe.mjs")], env: { SPAWN_LOG: spawns.file } } } } });
    const call = await agent(p, ["--permission-mode", "bypass", "call", "mcp__old__hello", "{}"]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toBe("hello from a 2025 server\n");
    expect(spawns.starts()).toBe(2);
    // The tool cache remembers it speaks 2025: the next command starts it once, without the probe.
    expect((await agent(p, ["--permission-mode", "bypass", "call", "mcp__old__hello", "{}"])).code).toBe(0);
    expect(spawns.starts()).toBe(3);
  });
});
