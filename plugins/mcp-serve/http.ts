/**
 * `agent mcp serve --http`: Streamable HTTP at /mcp on a loopback address, one MCP session (and server)
 * per client. A request must carry the bearer token printed at start, and a Host (and Origin, when sent)
 * that is local: a web page cannot reach the server through DNS rebinding.
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { localhostAllowedHostnames, validateHostHeader, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { CliContext, PluginHost } from "../../core/index.js";
import type { PendingCalls } from "./asker.js";
import { registryServer } from "./registry-server.js";

const HOSTS = [...localhostAllowedHostnames(), "[::1]"];

export async function serveHttp(host: PluginHost, pending: PendingCalls, listen: { host: string; port: number }, _ctx: CliContext<unknown>): Promise<number> {
  const token = process.env.AGENT_MCP_SERVE_TOKEN || randomBytes(24).toString("base64url");
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = createServer((req, res) => void handle(req, res).catch((err) => reply(res, 500, `internal error: ${(err as Error).message}`)));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = refusal(req, token);
    if (refused) return reply(res, refused.status, refused.message, refused.status === 401 ? { "www-authenticate": "Bearer" } : {});
    if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") return reply(res, 404, "not found: the MCP endpoint is /mcp");
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (typeof id === "string" && !transport) return reply(res, 404, "no such MCP session");
    if (!transport) transport = await newSession(host, pending, sessions);
    await send(res, await transport.handleRequest(toRequest(req)));
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(listen.port, listen.host, resolve);
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : listen.port;
  const shown = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  // Written as is: ctx.warn would redact the token, which is what the user needs to see here.
  process.stderr.write(`agent mcp serve: Streamable HTTP on http://${shown}:${port}/mcp\nAuthorization: Bearer ${token}\n`);
  // Serves until the process is stopped (SIGINT / SIGTERM close the host, and with it every child process).
  await new Promise<void>((resolve) => http.once("close", resolve));
  return 0;
}

async function newSession(host: PluginHost, pending: PendingCalls, sessions: Map<string, WebStandardStreamableHTTPServerTransport>): Promise<WebStandardStreamableHTTPServerTransport> {
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, transport),
    onsessionclosed: (id) => void sessions.delete(id),
  });
  await registryServer(host, pending).connect(transport);
  return transport;
}

/** No token, a wrong one, or a Host / Origin that is not this machine: refused before the SDK sees it. */
function refusal(req: IncomingMessage, token: string): { status: number; message: string } | undefined {
  const host = validateHostHeader(req.headers.host, HOSTS);
  if (!host.ok) return { status: 403, message: `forbidden: ${host.message}` };
  const origin = req.headers.origin;
  if (origin !== undefined && !validateHostHeader(safeHost(origin), HOSTS).ok) return { status: 403, message: `forbidden: origin ${origin} is not local` };
  const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "";
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { status: 401, message: "unauthorized: send the token agent mcp serve printed (Authorization: Bearer <token>)" };
  return undefined;
}

function safeHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream);
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: req.method, headers, body, duplex: "half" } as RequestInit);
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const body = Readable.fromWeb(response.body as never);
  res.on("close", () => body.destroy());
  body.pipe(res);
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
