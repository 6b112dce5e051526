/**
 * Servers that fail to connect, each in its own way: the failure is reported with a clear reason,
 * recorded (problems, audit, status), nothing is left running, and the other servers still work.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, describe, expect, it } from "vitest";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { cleanup, DEMO_SERVER, fixture, FIXTURES, freePort, isAlive, mcpHost, node, startServer, tempDir, waitFor } from "./_helpers.js";

afterAll(cleanup);

function failure(host: Awaited<ReturnType<typeof mcpHost>>, name: string): string | undefined {
  return host.problems.find((p) => p.kind === "server" && p.name === name)?.message;
}

describe("servers that fail to connect", () => {
  it("reports each stdio failure with its reason and keeps the working server", async () => {
    const cwd = tempDir();
    const host = await mcpHost(
      {
        demo: node(DEMO_SERVER),
        // 3 s: on a loaded machine, loading the SDK alone can take most of a second, and the stage named must be the handshake.
        hang: { ...fixture("hang-on-initialize"), connectTimeout: 3000 },
        invalid: { ...fixture("invalid-json"), connectTimeout: 3000 },
        exits: fixture("exit-immediately"),
        missing: { command: "agent-test-no-such-command" },
        nowhere: { ...node(DEMO_SERVER), cwd: "no/such/folder" },
        broken: { command: 42 },
      },
      { cwd },
    );

    expect(failure(host, "hang")).toBe(
      "MCP server hang failed to connect: timed out after 3000 ms waiting for the server to answer server/discover or initialize " +
        "(stderr: hang-on-initialize: started, will never answer). Continuing without hang tools.",
    );
    expect(failure(host, "invalid")).toMatch(
      /^MCP server invalid failed to connect: timed out after 3000 ms waiting for the server to answer server\/discover or initialize; it wrote 1 line to stdout that is not JSON-RPC, e\.g\. ".*oops this is not json".*\. Continuing without invalid tools\.$/,
    );
    expect(failure(host, "exits")).toBe(
      "MCP server exits failed to connect: the server process exited with code 3 before answering initialize: fatal: boom. Continuing without exits tools.",
    );
    expect(failure(host, "missing")).toBe(
      'MCP server missing failed to connect: could not start "agent-test-no-such-command": command not found (is it installed and on PATH?). Continuing without missing tools.',
    );
    expect(failure(host, "nowhere")).toBe(
      `MCP server nowhere failed to connect: could not start "${process.execPath}": its working folder ${path.join(cwd, "no/such/folder")} does not exist. Continuing without nowhere tools.`,
    );
    expect(failure(host, "broken")).toBe(
      "MCP server broken is misconfigured: mcpServers.broken.command: expected a non-empty string (the program to start), got the number 42. Continuing without broken tools.",
    );

    // The working server's tools are there, and only those.
    expect(host.tools.list().filter((t) => t.source.startsWith("mcp:")).map((t) => t.name).sort()).toEqual([
      "mcp__demo__add",
      "mcp__demo__echo",
      "mcp__demo__resources",
      "mcp__demo__upper",
    ]);
    const echo = await host.tools.call("mcp__demo__echo", { text: "still here" });
    expect(echo).toMatchObject({ ok: true, output: "still here" });

    const status = Object.fromEntries(getMcpStatus(host).map((s) => [s.name, s]));
    expect(status.demo).toMatchObject({ status: "connected", transport: "stdio", tools: 3 });
    expect(status.hang).toMatchObject({ status: "failed", tools: 0 });
    expect(status.hang.connectMs).toBeGreaterThan(0);
    expect(status.broken).toMatchObject({ status: "failed", error: expect.stringContaining("mcpServers.broken.command") });

    // Recorded in the audit log too.
    const audit = readFileSync(path.join(cwd, ".agent", "audit.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(audit.find((r) => r.name === "hang" && r.outcome === "failed")?.error).toMatch(/timed out after 3000 ms/);
    expect(audit.find((r) => r.name === "demo" && r.outcome === "connected")?.detail).toMatchObject({ transport: "stdio", tools: 3 });

    // stderr went to the server's log, not to our terminal.
    expect(readFileSync(path.join(cwd, ".agent", "logs", "mcp-exits.log"), "utf8")).toContain("fatal: boom");
  });

  it("a config warning is recorded as a warning, not as a failure", async () => {
    const cwd = tempDir();
    const host = await mcpHost({ off: { command: "x", args: ["${AGENT_TEST_SURELY_UNSET}"], disabled: true } }, { cwd });
    expect(host.problems).toContainEqual(expect.objectContaining({ kind: "config", name: "off", message: expect.stringContaining("${AGENT_TEST_SURELY_UNSET} is not set") }));
    const audit = readFileSync(path.join(cwd, ".agent", "audit.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(audit.filter((r) => r.name === "off").map((r) => r.outcome)).toEqual(["warning"]);
  });

  it("stops a server that never answered, without waiting for the host to close", async () => {
    const host = await mcpHost({ hang: { ...fixture("hang-on-initialize"), connectTimeout: 500 } });
    const log = () => readFileSync(userMcpLog(host.workspace.root, "hang"), "utf8");
    const pid = Number(/started pid (\d+)/.exec(log())?.[1]);
    expect(pid).toBeGreaterThan(0);
    // It ignores stdin EOF, so only a signal to its process group stops it.
    await waitFor(() => !isAlive(pid), "the hung server to be stopped", 60_000);
    expect(log()).toMatch(/exited \(signal SIG(TERM|KILL)\)/);
  });

  it("tolerates garbage on stdout before the handshake", async () => {
    const host = await mcpHost({ garbage: fixture("garbage-before-handshake") });
    expect(host.problems).toEqual([]);
    expect(await host.tools.call("mcp__garbage__ping", {})).toMatchObject({ ok: true, output: "pong" });
    const log = readFileSync(userMcpLog(host.workspace.root, "garbage"), "utf8");
    expect(log).toContain("[stdout, not JSON-RPC] Welcome to garbage-before-handshake v1.0!");
  });

  it("reports HTTP 500, HTTP 404 and nothing listening (Streamable HTTP and SSE)", async () => {
    const s500 = await startServer([path.join(FIXTURES, "http-status.mjs"), "--status", "500"], /listening (\d+)/);
    const s404 = await startServer([path.join(FIXTURES, "http-status.mjs"), "--status", "404"], /listening (\d+)/);
    const closed = await freePort();
    const host = await mcpHost({
      e500: { url: `http://127.0.0.1:${s500.port}/mcp`, connectTimeout: 5000 },
      e404: { url: `http://127.0.0.1:${s404.port}/mcp`, connectTimeout: 5000 },
      nobody: { url: `http://127.0.0.1:${closed}/mcp`, connectTimeout: 5000 },
      nobodySse: { type: "sse", url: `http://127.0.0.1:${closed}/sse`, connectTimeout: 5000 },
    });
    expect(failure(host, "e500")).toBe(
      `MCP server e500 failed to connect: HTTP 500 from http://127.0.0.1:${s500.port}/mcp: fixture says 500. Continuing without e500 tools.`,
    );
    // A 404 may mean "legacy SSE server": the SSE fallback is tried, and both failures are told.
    expect(failure(host, "e404")).toBe(
      `MCP server e404 failed to connect: HTTP 404 from http://127.0.0.1:${s404.port}/mcp: fixture says 404; ` +
        `the legacy SSE transport failed too: HTTP 404 from http://127.0.0.1:${s404.port}/mcp. Continuing without e404 tools.`,
    );
    expect(failure(host, "nobody")).toBe(
      `MCP server nobody failed to connect: connection refused by 127.0.0.1:${closed} (nothing is listening there). Continuing without nobody tools.`,
    );
    expect(failure(host, "nobodySse")).toBe(
      `MCP server nobodySse failed to connect: connection refused by 127.0.0.1:${closed} (nothing is listening there). Continuing without nobodySse tools.`,
    );
    expect(getMcpStatus(host).map((s) => [s.name, s.status])).toEqual([
      ["e500", "failed"],
      ["e404", "failed"],
      ["nobody", "failed"],
      ["nobodySse", "failed"],
    ]);
  });

  it("leaves disabled servers alone and lists them", async () => {
    const host = await mcpHost({ off: { ...node(DEMO_SERVER), disabled: true } });
    expect(getMcpStatus(host)).toEqual([expect.objectContaining({ name: "off", status: "disabled", tools: 0 })]);
    expect(host.tools.list().some((t) => t.source === "mcp:off")).toBe(false);
    expect(host.problems).toEqual([]);
  });
});
