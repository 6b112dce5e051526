/** The small parts of an MCP connection: its limits, the shapes of a session, and two promise helpers. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig, TransportKind } from "./config.js";
import { ConnectTimeoutError, describeError, isRequestTimeout } from "./errors.js";
import type { McpConnection } from "./connection.js";
import type { GuardedTransport } from "./frame-guard.js";
import type { StdioServerProcess } from "./stdio-process.js";
import type { SkippedTool } from "./tool-list.js";

declare const __AGENT_VERSION__: string;
export const CLIENT_INFO = { name: "agent-host", version: typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "0.0.0-dev" };

/** The gate's signal owns a call's deadline (and cancels it); the SDK's own timer must never fire first. */
export const NO_SDK_TIMEOUT = 2 ** 31 - 1;
export const LIST_TIMEOUT_MS = 30_000;
/** Prompts and resources read outside a tool call (slash commands) get this long. */
export const REQUEST_TIMEOUT_MS = 60_000;
export const MAX_RECONNECT_ATTEMPTS = 3;
export const RECONNECT_BASE_DELAY_MS = 250;

/** `idle`: not started yet (servers start when their tools are first needed). */
export type ConnectionStatus = "idle" | "connecting" | "connected" | "failed" | "disconnected";

/** What the manager hears about a connection's life. */
export interface ConnectionListener {
  /** The first connection ended, either way (see `status`): the registry is brought in line before `start()` resolves. */
  started(conn: McpConnection): Promise<void>;
  toolsChanged(conn: McpConnection): void;
  promptsChanged(conn: McpConnection): void;
  /** `notifications/resources/list_changed` (skills are resources). */
  resourcesChanged(conn: McpConnection): void;
  disconnected(conn: McpConnection, reason: string): void;
  reconnected(conn: McpConnection): void;
  gaveUp(conn: McpConnection, reason: string): void;
  /** `elicitation/create` (a form, or a URL to open): the answer for the server. */
  elicit(conn: McpConnection, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A server's `sampling/createMessage`, after the user's yes (sampling.ts). */
  sample(conn: McpConnection, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** The roots offered to a server (`roots/list`). */
  roots(conn: McpConnection): { uri: string; name: string }[];
}

export interface Session {
  client: Client;
  /** The transport itself (stdio, Streamable HTTP, SSE); the client is connected to `guard`, which wraps it. */
  transport: Transport;
  guard?: GuardedTransport;
  kind: TransportKind;
  proc?: StdioServerProcess;
}

export interface OpenedSession extends Session {
  tools: Tool[];
  /** Tools of the list that were skipped (invalid schemas), with the reason. */
  skippedTools: SkippedTool[];
  prompts: Prompt[];
}

/** How long closing waits to tell a server that its running requests are cancelled. */
export const CANCEL_ON_CLOSE_MS = 300;

/** Where an attempt got to, so a timeout can say what it was waiting for and clean up what exists. */
export interface Attempt {
  stage: string;
  session: Partial<Session>;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Wait for `p`, but give up (without stopping it) when `signal` aborts. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}


/** Every item of a paginated list (tools, prompts), stopping at a repeated cursor or 1000 pages. */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 1000; n++) {
    const r = await page(cursor);
    all.push(...r.items);
    if (!r.nextCursor || r.nextCursor === cursor) break;
    cursor = r.nextCursor;
  }
  return all;
}

/** Why a connection attempt failed, in words: what it waited for, what the server wrote or how it exited. */
export function explainFailure(err: unknown, state: Attempt, config: Pick<ServerConfig, "connectTimeout" | "url">): string {
  const { proc, transport } = state.session;
  const noise = (transport as { noise?: { lines: number; last: string } } | undefined)?.noise;
  if (err instanceof ConnectTimeoutError || isRequestTimeout(err)) {
    let msg = err instanceof ConnectTimeoutError ? err.message : `timed out after ${config.connectTimeout} ms ${state.stage}`;
    if (noise?.lines) {
      msg += `; it wrote ${noise.lines} line${noise.lines > 1 ? "s" : ""} to stdout that ${noise.lines > 1 ? "are" : "is"} not JSON-RPC, e.g. ${JSON.stringify(noise.last)}`;
    }
    if (proc?.exit) msg += `; ${proc.describeExit()}`;
    else if (proc?.stderrTail()) msg += ` (stderr: ${proc.stderrTail()})`;
    return msg;
  }
  const closeReason = (transport as { closeReason?: string } | undefined)?.closeReason;
  if (closeReason) return closeReason;
  if (proc?.exit) return proc.describeExit();
  return describeError(err, config.url);
}

/**
 * Stop what a session (or a failed attempt) started. Requests still running are cancelled on the
 * server first (`notifications/cancelled` with `reason`): it may stop work nobody waits for, and it
 * learns why. Then a Streamable HTTP session is ended (DELETE, as the spec asks), the client closed
 * and a stdio server stopped (stdin closed, then SIGTERM, then SIGKILL of its group).
 */
export async function disposeSession(s: Partial<Session> | undefined, reason: string): Promise<void> {
  if (!s) return;
  if (s.guard) await Promise.race([s.guard.cancelAll(reason), sleep(CANCEL_ON_CLOSE_MS)]);
  const t = s.transport as { sessionId?: string; terminateSession?: () => Promise<void> } | undefined;
  if (s.kind === "http" && t?.sessionId && t.terminateSession) {
    await Promise.race([t.terminateSession().catch(() => {}), sleep(500)]);
  }
  await s.client?.close().catch(() => {});
  await s.proc?.stop();
}
