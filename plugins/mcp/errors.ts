/**
 * Errors from the SDK, fetch and child processes, turned into one clear reason for people:
 * `HTTP 404 from http://...`, `connection refused by 127.0.0.1:4000`, `timed out after 1000 ms`.
 */

export class ConnectTimeoutError extends Error {
  constructor(
    readonly ms: number,
    readonly stage: string,
  ) {
    super(`timed out after ${ms} ms ${stage}`);
    this.name = "ConnectTimeoutError";
  }
}

/** The HTTP status of a transport error (StreamableHTTPError, SseError), if it has one. */
export function httpStatus(err: unknown): number | undefined {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code !== "number" || typeof e.message !== "string") return undefined;
  if (!/^(Streamable HTTP error|SSE error):/.test(e.message)) return undefined;
  return e.code >= 100 && e.code <= 599 ? e.code : undefined;
}

const JSONRPC_TIMEOUT = -32001;
const JSONRPC_CONNECTION_CLOSED = -32000;

export function isRequestTimeout(err: unknown): boolean {
  return (err as { code?: unknown })?.code === JSONRPC_TIMEOUT;
}

export function isConnectionClosed(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === JSONRPC_CONNECTION_CLOSED || e?.message === "Not connected";
}

function firstLine(s: string): string {
  return (s.split("\n").find((l) => l.trim()) ?? s).trim();
}

const NETWORK_CODE = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT)\b/;

/**
 * A network error from fetch: `TypeError: fetch failed` with a `cause`, or the same flattened into
 * a message by the SSE transport (`SSE error: TypeError: fetch failed: connect ECONNREFUSED ...`).
 */
function describeNetworkError(err: unknown, url: string | undefined): string | undefined {
  const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } })?.cause;
  const message = err instanceof Error ? err.message : "";
  const flattened = /^SSE error: TypeError: fetch failed(?::\s*(.*))?$/.exec(message.split("\n")[0]);
  let code = cause?.code ?? cause?.errors?.[0]?.code ?? (err as { code?: unknown })?.code;
  if (flattened && typeof code !== "string") code = NETWORK_CODE.exec(flattened[1] ?? "")?.[1];
  const where = url ? new URL(url).host : "the server";
  if (typeof code !== "string") {
    if (err instanceof TypeError && message === "fetch failed") return `could not reach ${where}${cause?.message ? `: ${cause.message}` : ""}`;
    if (flattened) return `could not reach ${where}${flattened[1] ? `: ${flattened[1]}` : ""}`;
    return undefined;
  }
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused by ${where} (nothing is listening there)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host ${url ? new URL(url).hostname : ""} not found`;
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return `the connection to ${where} was reset`;
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return `could not reach ${where} (network timeout)`;
    default:
      return cause?.message ? `${cause.message} (${code})` : undefined;
  }
}

/** One line saying why something failed. `url` is the remote server's, for context. */
export function describeError(err: unknown, url?: string): string {
  if (err instanceof ConnectTimeoutError) return err.message;
  const status = httpStatus(err);
  if (status !== undefined) {
    const detail = firstLine(String((err as Error).message))
      .replace(/^(Streamable HTTP error|SSE error):\s*/, "")
      .replace(/^Error POSTing to endpoint:\s*/, "")
      .replace(/^Non-200 status code \(\d+\)$/, "");
    return `HTTP ${status}${url ? ` from ${url}` : ""}${detail ? `: ${detail}` : ""}`;
  }
  const net = describeNetworkError(err, url);
  if (net) return net;
  const message = err instanceof Error ? err.message : String(err);
  if (isConnectionClosed(err)) return "the server closed the connection";
  return firstLine(message.replace(/^MCP error -?\d+:\s*/, "")) || "unknown error";
}
