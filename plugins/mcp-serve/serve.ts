/** `agent mcp serve`: open the host with a permission asker that asks the clients, then serve it. */
import { AgentError, type CliContext } from "../../core/index.js";
import { PendingCalls } from "./asker.js";
import { registryServer } from "./registry-server.js";

export async function runServe(ctx: CliContext<{ http?: string }>): Promise<number> {
  const listen = ctx.values.http === undefined ? undefined : parseListen(ctx.values.http);
  const pending = new PendingCalls();
  const host = await ctx.openHost({ askPermission: pending.asker });
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
