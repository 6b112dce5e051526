/** `agent mcp serve`: open the host with a permission asker that asks the clients, then serve it. */
import { AgentError, type CliContext, type PluginHost } from "../../core/index.js";
import { PendingCalls } from "./asker.js";
import { servesAgentHost } from "./loop-guard.js";
import { registryServer } from "./registry-server.js";

export async function runServe(ctx: CliContext<{ http?: string }>): Promise<number> {
  const listen = ctx.values.http === undefined ? undefined : parseListen(ctx.values.http);
  const pending = new PendingCalls();
  const host = await openServingHost(ctx, pending);
  host.on(pending.onEvent);
  if (listen) {
    const { serveHttp } = await import("./http.js");
    return serveHttp(host, pending, listen, ctx);
  }
  const { StdioServerTransport } = await import("@modelcontextprotocol/server/stdio");
  const server = registryServer(host, pending);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  return 0;
}

/**
 * The host to serve. A configured server that is agent-host serving is turned off for it (not started, not
 * served): started, it would list its own servers, which may include this one, without end.
 */
async function openServingHost(ctx: CliContext<{ http?: string }>, pending: PendingCalls): Promise<PluginHost> {
  const servers = ((await ctx.prepare()).config as { mcpServers?: Record<string, Record<string, unknown>> }).mcpServers ?? {};
  const looped = Object.keys(servers).filter((name) => servesAgentHost(servers[name]));
  if (!looped.length) return ctx.openHost({ askPermission: pending.asker });
  for (const name of looped) ctx.warn(`agent mcp serve: MCP server "${name}" is agent-host serving (its command line has "mcp serve"): not started here, and not served again.`);
  const off = Object.fromEntries(looped.map((name) => [name, { ...servers[name], disabled: true }]));
  return ctx.openSessionHost({ askPermission: pending.asker, quiet: false, config: { mcpServers: off } as never });
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** `--http 8123`, `--http 127.0.0.1:8123`, `--http localhost:0`: loopback only (the token is no TLS). */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:(.+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new AgentError("E_USAGE", `--http takes [host:]port, e.g. --http 8123 or --http 127.0.0.1:8123; got "${value}"`);
  const host = m[1] ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new AgentError("E_USAGE", `--http listens on a loopback address only (127.0.0.1, localhost, ::1); got "${host}"`);
  return { host: host === "[::1]" ? "::1" : host, port };
}
