/**
 * One session with a server (its SDK client, transport, frame guard and process) as an attempt opens
 * it, why an attempt failed in words, and how a session is stopped. Shared by connection.ts and
 * transport/http-open.ts, which opens the remote ones.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import type { Prompt, Tool } from "@modelcontextprotocol/client";
import type { ServerConfig, TransportKind } from "./config.js";
import { ConnectTimeoutError, describeError, isRequestTimeout } from "./errors.js";
import type { SkippedTool } from "./tool-list.js";
import type { GuardedTransport } from "./transport/frame-guard.js";
import type { StdioServerProcess } from "./transport/stdio-process.js";

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

/** Where an attempt got to, so a timeout can say what it was waiting for and clean up what exists. */
export interface Attempt {
  stage: string;
  session: Partial<Session>;
}

/** How long closing waits to tell a server that its running requests are cancelled. */
export const CANCEL_ON_CLOSE_MS = 300;

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The request an attempt at `stage` had not had answered: `initialize` during the handshake (the probe included). */
function awaited(stage: string): string {
  if (stage === "listing tools") return "tools/list";
  if (stage === "listing prompts") return "prompts/list";
  return "initialize";
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
    if (proc?.exit) msg += `; ${proc.describeExit(awaited(state.stage))}`;
    else if (proc?.stderrTail()) msg += ` (stderr: ${proc.stderrTail()})`;
    return msg;
  }
  const closeReason = (transport as { closeReason?: string } | undefined)?.closeReason;
  if (closeReason) return closeReason;
  if (proc?.exit) return proc.describeExit(awaited(state.stage));
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
