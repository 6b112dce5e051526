/**
 * Remote servers over real HTTP on 127.0.0.1: Streamable HTTP first, the legacy SSE transport when
 * the server says it only speaks that, headers with ${VAR} expansion.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, describe, expect, it } from "vitest";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { cleanup, DEMO_SERVER, FIXTURES, freePort, mcpHost, startEverything, startServer } from "./_helpers.js";

afterAll(cleanup);

describe("remote MCP servers", () => {
  it("talks Streamable HTTP to the demo server", async () => {
    const { port } = await startServer([DEMO_SERVER, "--http", "0"], /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
    const host = await mcpHost({ demo: { url: `http://127.0.0.1:${port}/mcp` } });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", transport: "http", tools: 3 });
    expect(await host.tools.call("mcp__demo__add", { a: 1, b: 2 })).toMatchObject({ ok: true, output: "3", structured: { sum: 3 } });
  });

  it("speaks 2026-07-28 to the demo server (no session), and 2025 when the config pins it", async () => {
    const { port } = await startServer([DEMO_SERVER, "--http", "0"], /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
    const url = `http://127.0.0.1:${port}/mcp`;
    const host = await mcpHost({ now: { url }, old: { url, protocol: "2025" } });
    expect(getMcpStatus(host).map((s) => [s.name, s.status, s.protocol])).toEqual([
      ["now", "connected", "2026-07-28"],
      ["old", "connected", "2025-11-25"],
    ]);
    expect(await host.tools.call("mcp__now__echo", { text: "stateless" })).toMatchObject({ ok: true, output: "stateless" });
    expect(await host.tools.call("mcp__old__echo", { text: "session" })).toMatchObject({ ok: true, output: "session" });
  });

  it("opens a new session when a restarted server no longer knows ours (2025)", async () => {
    const port = await freePort();
    const first = await startServer([DEMO_SERVER, "--http", String(port)], /listening on http/);
    const host = await mcpHost({ demo: { url: `http://127.0.0.1:${port}/mcp`, protocol: "2025" } });
    expect(await host.tools.call("mcp__demo__echo", { text: "before" })).toMatchObject({ ok: true, output: "before" });
    first.child.kill("SIGTERM");
    await new Promise((r) => first.child.once("exit", r));
    await startServer([DEMO_SERVER, "--http", String(port)], /listening on http/);
    // The old session id gets a 404: the call is sent again on a new session.
    expect(await host.tools.call("mcp__demo__echo", { text: "after" })).toMatchObject({ ok: true, output: "after" });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", transport: "http" });
    // A remote server's log too: in the user's state folder, the project having had no .agent/.
    const log = readFileSync(userMcpLog(host.workspace.root, "demo"), "utf8");
    expect(log).toMatch(/disconnected: the server ended the session \(HTTP 404 from .*Session not found/);
  });

  it("talks to server-everything in its streamableHttp and sse modes", async () => {
    const http = await startEverything("streamableHttp");
    const sse = await startEverything("sse");
    const host = await mcpHost({ viaHttp: { url: http.url }, viaSse: { type: "sse", url: sse.url } });
    // Only its task-only tool is left out (it would fail every plain call), once per server.
    expect(host.problems.map((p) => p.message.replace(/^MCP server \w+: /, ""))).toEqual([
      'tool "simulate-research-query" skipped: it runs only as a task (execution.taskSupport "required"), which agent does not call. Its other tools are available.',
      'tool "simulate-research-query" skipped: it runs only as a task (execution.taskSupport "required"), which agent does not call. Its other tools are available.',
    ]);
    const status = Object.fromEntries(getMcpStatus(host).map((s) => [s.name, s]));
    expect(status.viaHttp).toMatchObject({ status: "connected", transport: "http" });
    expect(status.viaSse).toMatchObject({ status: "connected", transport: "sse" });
    expect(await host.tools.call("mcp__viaHttp__echo", { message: "over http" })).toMatchObject({ ok: true, output: "Echo: over http" });
    expect(await host.tools.call("mcp__viaSse__echo", { message: "over sse" })).toMatchObject({ ok: true, output: "Echo: over sse" });
  });

  it("falls back to SSE for a legacy server when the Streamable HTTP attempt gets a 4xx", async () => {
    const { port } = await startServer([path.join(FIXTURES, "sse-only.mjs")], /listening (\d+)/);
    const host = await mcpHost({ legacy: { url: `http://127.0.0.1:${port}/sse` }, strict: { type: "http", url: `http://127.0.0.1:${port}/sse`, connectTimeout: 5000 } });
    const status = Object.fromEntries(getMcpStatus(host).map((s) => [s.name, s]));
    expect(status.legacy).toMatchObject({ status: "connected", transport: "sse", tools: 1 });
    expect(await host.tools.call("mcp__legacy__echo", { text: "old but fine" })).toMatchObject({ ok: true, output: "old but fine" });
    // With "type": "http" there is no fallback.
    expect(status.strict).toMatchObject({ status: "failed", error: `HTTP 405 from http://127.0.0.1:${port}/sse: method not allowed` });
  });

  it("sends configured headers, with ${VAR} expanded, and keeps the secret out of messages", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(401, { "content-type": "text/plain" }).end("bad token\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    process.env.AGENT_TEST_MCP_TOKEN = "s3cr3t-value-123";
    try {
      const host = await mcpHost({ auth: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: "Bearer ${AGENT_TEST_MCP_TOKEN}", "X-Team": "${AGENT_TEST_TEAM:-core}" } } });
      expect(seen[0].authorization).toBe("Bearer s3cr3t-value-123");
      expect(seen[0]["x-team"]).toBe("core");
      const message = host.problems.find((p) => p.name === "auth")!.message;
      // 401 is not a "legacy server" sign: no SSE fallback, and the reason says what happened.
      expect(message).toBe(`MCP server auth failed to connect: HTTP 401 from http://127.0.0.1:${port}/mcp: bad token. Continuing without auth tools.`);
      expect(seen).toHaveLength(1);
    } finally {
      delete process.env.AGENT_TEST_MCP_TOKEN;
      server.close();
    }
  });
});
