/**
 * Errors from the SDK, fetch and child processes, turned into one clear reason for people:
 * `HTTP 404 from http://...`, `connection refused by 127.0.0.1:4000`, `timed out after 1000 ms`.
 */
import { oneLine } from "../../kit/index.js";

export class ConnectTimeoutError extends Error {
  constructor(
    readonly ms: number,
    readonly stage: string,
  ) {
    super(`timed out after ${ms} ms ${stage}`);
    this.name = "ConnectTimeoutError";
  }
}

/** The HTTP status of a transport error (the SDK's SdkHttpError, SseError), if it has one. */
export function httpStatus(err: unknown): number | undefined {
  const e = err as { code?: unknown; message?: unknown; data?: { status?: unknown } };
  if (typeof e?.code === "string" && typeof e.data?.status === "number") return e.data.status >= 100 && e.data.status <= 599 ? e.data.status : undefined;
  if (typeof e?.code !== "number" || typeof e.message !== "string") return undefined;
  if (!/^(Streamable HTTP error|SSE error):/.test(e.message)) return undefined;
  return e.code >= 100 && e.code <= 599 ? e.code : undefined;
}

const JSONRPC_TIMEOUT = -32001;
const JSONRPC_CONNECTION_CLOSED = -32000;
/** The SDK's own error codes (SdkErrorCode) for the same two cases. */
const SDK_TIMEOUT = "REQUEST_TIMEOUT";
const SDK_CLOSED = new Set(["CONNECTION_CLOSED", "NOT_CONNECTED"]);

/**
 * What the server answered with when it sent a JSON-RPC error: the frame guard (transport/frame-guard.ts) puts
 * it in the error's `data`, so an answer with code -32000 or -32001 is never taken for the SDK's own
 * "connection closed" or "request timed out" (which use the same codes).
 */
export class ServerErrorAnswer {
  constructor(
    readonly code: number,
    readonly message: string,
    readonly data: unknown,
  ) {}
}

/** An answer to one of our requests that the frame guard refused (too deep, not JSON-RPC): the request fails with `reason`. */
export class RejectedAnswer {
  constructor(readonly reason: string) {}
}

/**
 * Answers whose `data` is an object keep it as sent (the SDK reads fields of some: `-32022`'s supported
 * versions, `-32042`'s elicitations); the answer is found through the data object instead.
 */
const answersByData = new WeakMap<object, ServerErrorAnswer>();

/** The `data` a server's error answer is handed to the SDK with: its own object, or a ServerErrorAnswer in place of a primitive. */
export function markServerError(code: number, message: string, data: unknown): unknown {
  const answer = new ServerErrorAnswer(code, message, data);
  if (typeof data === "object" && data !== null) {
    answersByData.set(data, answer);
    return data;
  }
  return answer;
}

export function serverErrorAnswer(err: unknown): ServerErrorAnswer | undefined {
  const data = (err as { data?: unknown } | undefined)?.data;
  if (data instanceof ServerErrorAnswer) return data;
  return typeof data === "object" && data !== null ? answersByData.get(data) : undefined;
}

export function rejectedAnswer(err: unknown): RejectedAnswer | undefined {
  const data = (err as { data?: unknown } | undefined)?.data;
  return data instanceof RejectedAnswer ? data : undefined;
}

/** An answer from the server (an error it sent, or an answer we refused), as opposed to an error of the client or the connection. */
function fromServer(err: unknown): boolean {
  return serverErrorAnswer(err) !== undefined || rejectedAnswer(err) !== undefined;
}

export function isRequestTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return (code === JSONRPC_TIMEOUT || code === SDK_TIMEOUT) && !fromServer(err);
}

export function isConnectionClosed(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return (e?.code === JSONRPC_CONNECTION_CLOSED || SDK_CLOSED.has(e?.code as string) || e?.message === "Not connected") && !fromServer(err);
}

/** Text from a server on one line, at most `max` characters (a multi-line message is kept whole, not cut to a fragment). */
/** A JSON value for a message, bounded (a server's error `data`). */
export function briefJson(v: unknown, max = 300): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `the server answered with error -32000: tool threw (data: {...})`. */
export function describeServerError(answer: ServerErrorAnswer): string {
  const data = answer.data === undefined ? "" : ` (data: ${briefJson(answer.data)})`;
  return `the server answered with error ${answer.code}: ${oneLine(answer.message, 1000) || "(no message)"}${data}`;
}

/**
 * A validation error (zod's message is its issues as pretty-printed JSON, whose first line is `[`):
 * `the server's answer does not match the MCP schema: tools[3].inputSchema.type: expected "object"`.
 */
function describeSchemaError(err: unknown): string | undefined {
  const issues = (err as { issues?: unknown })?.issues;
  if (!Array.isArray(issues) || !issues.length) return undefined;
  const parts = issues.slice(0, 3).map((i: { path?: unknown[]; message?: unknown }) => {
    const where = (Array.isArray(i.path) ? i.path : []).map((k, n) => (typeof k === "number" ? `[${k}]` : `${n ? "." : ""}${String(k)}`)).join("");
    return `${where || "(answer)"}: ${oneLine(String(i.message ?? "invalid"), 200)}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
  return `the server's answer does not match the MCP schema: ${parts.join("; ")}${more}`;
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
  // A `server/discover` probe that failed on the network: the network error is the reason.
  const cause = (err as { code?: unknown; cause?: unknown } | undefined)?.cause;
  if ((err as { code?: unknown })?.code === "ERA_NEGOTIATION_FAILED" && cause instanceof Error) return describeError(cause, url);
  const answer = serverErrorAnswer(err);
  if (answer) return describeServerError(answer);
  const rejected = rejectedAnswer(err);
  if (rejected) return rejected.reason;
  const schema = describeSchemaError(err);
  if (schema) return schema;
  const status = httpStatus(err);
  if (status !== undefined) {
    // A failed `server/discover` probe names the probe; the body the server sent says more.
    const text = (err as { data?: { text?: unknown } }).data?.text;
    const probe = /^Version negotiation failed/.test(String((err as Error).message)) && typeof text === "string" && text.trim();
    const body = String(probe ? text : (err as Error).message)
      .replace(/^(Streamable HTTP error|SSE error):\s*/, "")
      .replace(/^(Error POSTing to endpoint|Failed to open SSE stream):\s*/, "");
    // A pretty-printed JSON body would lose all but its first line (`{`): keep it whole, on one line.
    const detail = (/^\s*[[{]/.test(body) ? oneLine(body, 300) : firstLine(body)).replace(/^Non-200 status code \(\d+\)$/, "");
    return `HTTP ${status}${url ? ` from ${url}` : ""}${detail ? `: ${detail}` : ""}`;
  }
  const net = describeNetworkError(err, url);
  if (net) return net;
  const message = err instanceof Error ? err.message : String(err);
  if (isConnectionClosed(err)) return "the server closed the connection";
  // A message that starts like JSON would lose all but its first line: keep it whole, on one line.
  const text = message.replace(/^MCP error -?\d+:\s*/, "");
  const line = /^\s*[[{]/.test(text) ? oneLine(text, 500) : firstLine(text);
  return line || "unknown error";
}
