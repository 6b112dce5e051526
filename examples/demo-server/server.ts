/**
 * demo-server — a tiny, well-behaved MCP server for trying out agent-host.
 *
 * Tools (all pure and read-only):
 *   echo  {text: string}          -> the same text
 *   add   {a: number, b: number}  -> the sum, as text and as structuredContent {sum}
 *   upper {text: string}          -> the text in upper case
 * Resource: demo://about (Markdown). Prompt: greet {name}.
 *
 * Run modes (both speak both protocol eras: the stateless 2026-07-28 revision, `server/discover` and
 * per-request `_meta`, and the 2025 initialize handshake):
 *   demo-server                 stdio (the default; stdout is the protocol channel)
 *   demo-server --http <port>   Streamable HTTP on http://127.0.0.1:<port>/mcp
 *                               (`--http 0` picks a free port; the real one is printed);
 *                               2025 clients get a session (Mcp-Session-Id), 2026-07-28 ones none;
 *                               a request whose Host or Origin is not 127.0.0.1 / localhost
 *                               at this port gets 403 (DNS-rebinding protection)
 *
 * All diagnostics go to stderr. In stdio mode, anything written to stdout that
 * is not a JSON-RPC message would corrupt the protocol stream.
 *
 * Built by tsup to dist/demo-server.js; during development run it with
 * `npx jiti examples/demo-server/server.ts [--http 0]`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, isInitializeRequest, isLegacyRequest, McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const NAME = "demo-server";
const VERSION = "0.1.0";
/** Largest POST body we are willing to buffer (matches the SDK's own default). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function log(message: string): void {
  process.stderr.write(`${NAME} ${message}\n`);
}

/** Builds a fresh server with the demo tools. One per stdio process, per 2025 HTTP session, per 2026-07-28 request. */
function createDemoServer(): McpServer {
  const server = new McpServer({ name: NAME, version: VERSION });

  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Returns the given text unchanged. Useful for checking that a tool round-trip works.",
      inputSchema: z.object({ text: z.string().describe("The text to send back") }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );

  server.registerTool(
    "add",
    {
      title: "Add two numbers",
      description: "Adds two numbers and returns the sum, both as text and as structured content {sum}.",
      inputSchema: z.object({
        a: z.number().describe("The first addend"),
        b: z.number().describe("The second addend"),
      }),
      outputSchema: z.object({ sum: z.number().describe("a + b") }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ a, b }) => {
      const sum = a + b;
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    },
  );

  server.registerTool(
    "upper",
    {
      title: "Upper-case",
      description: "Returns the given text converted to upper case.",
      inputSchema: z.object({ text: z.string().describe("The text to convert") }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }),
  );

  server.registerResource(
    "about",
    "demo://about",
    { title: "About the demo server", description: "What this server is and what it offers", mimeType: "text/markdown" },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: `# ${NAME} ${VERSION}\n\nTools: echo, add, upper. Prompt: greet. This resource: ${uri.href}.\n` }],
    }),
  );

  server.registerPrompt(
    "greet",
    { title: "Greet someone", description: "Asks the model to greet someone by name", argsSchema: z.object({ name: z.string().describe("Who to greet") }) },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please greet ${name} warmly, in one sentence.` } }] }),
  );

  return server;
}

/** Parses argv: returns the port for `--http <port>` / `--http=<port>`, or undefined for stdio. */
function parseHttpPort(argv: readonly string[]): number | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let value: string | undefined;
    if (arg === "--http") value = argv[i + 1];
    else if (arg.startsWith("--http=")) value = arg.slice("--http=".length);
    else continue;
    const port = Number(value);
    if (value === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
      throw new Error(`--http needs a port number between 0 and 65535, got ${JSON.stringify(value)}`);
    }
    return port;
  }
  return undefined;
}

async function runStdio(): Promise<void> {
  // serveStdio answers `server/discover` (2026-07-28) or `initialize` (2025) with one server from the factory.
  const handle = serveStdio(createDemoServer);
  const shutdown = async (signal: string): Promise<void> => {
    log(`received ${signal}, shutting down`);
    await handle.close().catch(() => {});
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  // When the client closes our stdin, there is nobody left to talk to.
  process.stdin.once("end", () => void shutdown("stdin end"));
  log("running on stdio");
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

/** Host names this server answers to: it listens on 127.0.0.1 only. */
const LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/** Why a request's Host or Origin is not this server's own (undefined: it is). */
function refuseForeign(req: Pick<IncomingMessage, "headers">, port: number): string | undefined {
  const host = req.headers.host;
  if (!host || !LOCAL_HOSTS.some((h) => host === `${h}:${port}` || host === h)) return `Host ${JSON.stringify(host ?? "")} is not this server (127.0.0.1:${port})`;
  const origin = req.headers.origin;
  if (origin !== undefined && !LOCAL_HOSTS.some((h) => origin === `http://${h}:${port}` || origin === `http://${h}`)) return `Origin ${JSON.stringify(origin)} is not allowed`;
  return undefined;
}

/** The web-standard Request the SDK's HTTP handlers take, for a Node request whose body was read already. */
function toRequest(req: IncomingMessage, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, { method: req.method, headers, body: body ? new Uint8Array(body) : undefined });
}

/** Writes a web-standard Response (an SSE stream included) to the Node response; a client that leaves cancels the stream. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new RangeError("request body too large");
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

async function runHttp(port: number): Promise<void> {
  let actualPort = port;
  /** 2025 sessions: one transport (and one McpServer) per mcp-session-id. */
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  /** 2026-07-28: stateless, a server per request; 2025 requests are routed to the sessions above before it. */
  const modern = createMcpHandler(createDemoServer, { legacy: "reject" });

  /** A 2025 request: to its session, or a new session for `initialize`. */
  async function legacy(req: IncomingMessage, res: ServerResponse, request: Request, sessionId: string | undefined, body: unknown): Promise<void> {
    const existing = sessionId !== undefined ? sessions.get(sessionId) : undefined;
    if (existing) return sendResponse(res, await existing.handleRequest(request));
    if (req.method === "POST" && sessionId === undefined && isInitializeRequest(body)) {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id: string) => {
          sessions.set(id, transport);
          log(`session ${id} opened`);
        },
      });
      transport.onclose = () => {
        const id = transport.sessionId;
        if (id !== undefined && sessions.delete(id)) log(`session ${id} closed`);
      };
      await createDemoServer().connect(transport);
      return sendResponse(res, await transport.handleRequest(request));
    }
    if (sessionId !== undefined) sendJsonRpcError(res, 404, -32001, "Session not found");
    else sendJsonRpcError(res, 400, -32000, "Bad Request: no valid session ID provided");
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS-rebinding protection (MCP spec, Streamable HTTP "Security Warning"): a page on another site
    // that resolves its name to 127.0.0.1 sends its own Host (and Origin); only local names are served.
    const refused = refuseForeign(req, actualPort);
    if (refused) {
      log(`refused ${req.method} ${req.url}: ${refused}`);
      sendJsonRpcError(res, 403, -32000, `Forbidden: ${refused}`);
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found; the MCP endpoint is /mcp\n");
      return;
    }
    if (req.method !== "POST" && req.method !== "GET" && req.method !== "DELETE") {
      res.writeHead(405, { allow: "GET, POST, DELETE", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    let raw: Buffer | undefined;
    let body: unknown;
    if (req.method === "POST") {
      try {
        raw = await readBody(req);
        body = JSON.parse(raw.toString("utf8"));
      } catch (err) {
        if (err instanceof RangeError) sendJsonRpcError(res, 413, -32600, "Request body too large");
        else sendJsonRpcError(res, 400, -32700, "Parse error: invalid JSON");
        return;
      }
    }
    const request = toRequest(req, raw);
    if (sessionId !== undefined || (await isLegacyRequest(request.clone(), body))) return legacy(req, res, request, sessionId, body);
    await sendResponse(res, await modern.fetch(request));
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`error handling ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}`);
      sendJsonRpcError(res, 500, -32603, "Internal server error");
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, "127.0.0.1", () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  actualPort = (httpServer.address() as AddressInfo).port;
  log(`listening on http://127.0.0.1:${actualPort}/mcp`);

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    log(`received ${signal}, shutting down`);
    // Closing each transport ends its open SSE streams so the HTTP server can finish.
    await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    await modern.close().catch(() => {});
    sessions.clear();
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}

async function main(): Promise<void> {
  const port = parseHttpPort(process.argv.slice(2));
  if (port === undefined) await runStdio();
  else await runHttp(port);
}

main().catch((err: unknown) => {
  log(`fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
