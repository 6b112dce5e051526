/**
 * Between every transport (stdio, Streamable HTTP, SSE) and the SDK's client: no frame a server
 * sends reaches the SDK unless it is one the SDK handles without harm, and nothing a transport
 * calls back with can throw into the host.
 *
 * - A frame nested deeper than MAX_FRAME_DEPTH is refused before anything walks it recursively (the
 *   SDK JSON.stringify()s a response to an unknown id for its error message, which overflows the stack
 *   on 10 000 nested arrays and used to crash the host).
 * - A response to an id we never sent (or already got an answer for, or cancelled) is dropped here.
 * - A response to one of our requests that cannot be used (too deep, not valid JSON-RPC) fails that
 *   request with the reason instead of leaving it to hang.
 * - A request from the server that is not valid JSON-RPC but has an id is answered with -32600;
 *   valid requests go to the SDK, which answers the ones we have no handler for with -32601.
 * - A JSON-RPC error answer is marked as the server's (ServerErrorAnswer, its object data kept as sent for the SDK), so -32000 / -32001 from a
 *   server are not taken for the SDK's own "connection closed" / "timed out".
 * Whatever is refused is logged (the first ones in full, then one line per 1000) and counted.
 */
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { oneLine, tooDeep } from "../../../kit/index.js";
import { markServerError, RejectedAnswer } from "../errors.js";
import { isRecord } from "../config/values.js";

/** Far deeper than any real MCP message (tool schemas included), far below what recursive code survives. */
export const MAX_FRAME_DEPTH = 100;
/** Frames logged one by one before the log only counts them. */
const LOGGED_IN_FULL = 50;

type Id = string | number;
type Loose = Record<string, unknown>;

function isId(v: unknown): v is Id {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/**
 * Whether `value` nests `max` levels or more, found without recursion and without building the key
 * paths core's `tooDeep` reports (a tenth of its cost: this runs on every frame; `tooDeep` names the
 * path only for a frame that is refused).
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const stack: unknown[] = [value];
  const depths: number[] = [0];
  while (stack.length) {
    const v = stack.pop() as Loose;
    const d = depths.pop()!;
    if (d >= max) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null && typeof x === "object") {
          stack.push(x);
          depths.push(d + 1);
        }
      }
    } else {
      for (const k in v) {
        const x = v[k];
        if (x !== null && typeof x === "object") {
          stack.push(x);
          depths.push(d + 1);
        }
      }
    }
  }
  return false;
}

/** A short picture of a refused frame for the log, built without walking it. */
function sketch(v: unknown): string {
  if (!isRecord(v)) return Array.isArray(v) ? `an array of ${v.length}` : typeof v === "string" ? `the string ${JSON.stringify(v.slice(0, 60))}` : String(v);
  const keys = Object.keys(v).slice(0, 6);
  const id = isId(v.id) ? ` id ${JSON.stringify(v.id)}` : "";
  const method = typeof v.method === "string" ? ` method ${JSON.stringify(v.method.slice(0, 80))}` : "";
  return `{${keys.join(", ")}}${method}${id}`;
}

/** Where a value went too deep, shortened for a message. */
function shortDeepPath(path: string): string {
  return path.length > 60 ? `${path.slice(0, 60)}…` : path;
}

export interface GuardOptions {
  /** Writes a line to the server's log. */
  note(line: string): void;
  /**
   * A local process's pipe: the SDK then takes a `server/discover` probe left unanswered (or a pipe
   * closed on it) for a 2025 server, as on its own stdio transport; over HTTP silence is an outage.
   */
  stdio?: boolean;
}

export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: unknown) => void;
  /** Frames refused so far, and the last one. */
  readonly refused = { frames: 0, last: "" };
  /** Our requests still waiting for an answer: id → method (keyed by String(id): an answer may quote 7 as "7"; `listen:1` ids are strings). */
  private readonly pending = new Map<string, string>();

  constructor(
    readonly inner: Transport,
    private readonly options: GuardOptions,
  ) {
    // The SDK tells a stdio transport by these two members (its probe classifier reads nothing else).
    if (options.stdio) Object.assign(this, { pid: undefined, stderr: null });
    inner.onmessage = (message, extra) => this.receive(message, extra);
    inner.onerror = (error) => this.safely("onerror", () => this.onerror?.(error));
    inner.onclose = () => this.safely("onclose", () => this.onclose?.());
    // Every transport checks frames against the JSON-RPC schema before onmessage. Ours (stdio) hands
    // over the JSON that fails it, so an answer to one of our requests can still fail that request.
    if ("oninvalid" in inner) {
      (inner as { oninvalid?: (value: unknown, reason: string) => void }).oninvalid = (value, reason) => this.safely("oninvalid", () => this.invalid(value, reason));
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  /** Streamable HTTP: one POST per request, whose closing cancels it at 2026-07-28. */
  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Loose;
    if (typeof m.method === "string") {
      if (isId(m.id)) this.pending.set(String(m.id), m.method);
      else if (m.method === "notifications/cancelled") {
        const id = (m.params as Loose | undefined)?.requestId;
        if (isId(id)) this.pending.delete(String(id));
      }
    }
    return this.inner.send(message, options);
  }

  /** Ids of our requests still waiting for an answer, with their method. */
  inFlight(): [string, string][] {
    return [...this.pending];
  }

  /**
   * Tell the server we no longer wait for any of our requests (`notifications/cancelled`), e.g. when
   * the host shuts down mid-call. `initialize` is never cancelled (the spec forbids it).
   */
  async cancelAll(reason: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const [id, method] of this.pending) {
      if (method === "initialize") continue;
      this.pending.delete(id);
      const requestId = /^\d+$/.test(id) ? Number(id) : id;
      sends.push(this.inner.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } }).catch(() => {}));
    }
    await Promise.all(sends);
  }

  private receive(message: unknown, extra?: unknown): void {
    let checked: JSONRPCMessage | undefined;
    try {
      checked = this.check(message);
    } catch (err) {
      this.refuse(message, `could not be checked (${(err as Error)?.message ?? String(err)})`);
      return;
    }
    if (!checked) return;
    // As safely() does, without a closure per frame.
    try {
      this.onmessage?.(checked, extra);
    } catch (err) {
      this.failedIn("onmessage", err);
    }
  }

  private check(value: unknown): JSONRPCMessage | undefined {
    if (deeperThan(value, MAX_FRAME_DEPTH)) {
      const at = tooDeep(value, MAX_FRAME_DEPTH) ?? "(root)";
      return this.invalid(value, `it is nested more than ${MAX_FRAME_DEPTH} levels deep (at ${shortDeepPath(at)})`);
    }
    const m = value as Loose;
    if (typeof m.method === "string") return value as JSONRPCMessage;
    // A response: only to a request we sent and still wait for.
    const key = String(m.id);
    if (!isId(m.id) || !this.pending.delete(key)) {
      this.refuse(value, `is an answer to a request it was never sent or that was already answered or cancelled (id ${JSON.stringify(m.id)})`);
      return undefined;
    }
    if (isRecord(m.error)) {
      const e = m.error as { code: number; message: string; data?: unknown };
      return { ...(m as object), error: { code: e.code, message: e.message, data: markServerError(e.code, e.message, e.data) } } as JSONRPCMessage;
    }
    return value as JSONRPCMessage;
  }

  /**
   * A frame that cannot be used. An answer to one of our requests fails that request with the reason;
   * a request with an id is answered with -32600; anything else is dropped.
   */
  private invalid(value: unknown, reason: string): undefined {
    const m = isRecord(value) ? value : undefined;
    if (m && isId(m.id) && typeof m.method !== "string" && this.pending.has(String(m.id))) {
      this.pending.delete(String(m.id));
      this.refuse(value, `was refused: ${reason}; the request it answers fails`);
      const error = { code: -32603, message: `the server's answer cannot be used: ${reason}`, data: new RejectedAnswer(`the server's answer cannot be used: ${reason}`) };
      this.safely("onmessage", () => this.onmessage?.({ jsonrpc: "2.0", id: m.id as Id, error } as JSONRPCMessage));
      return undefined;
    }
    if (m && isId(m.id) && typeof m.method === "string") {
      this.refuse(value, `was refused: ${reason}; answered with error -32600`);
      void this.inner.send({ jsonrpc: "2.0", id: m.id, error: { code: -32600, message: `Invalid request: ${reason}` } }).catch(() => {});
      return undefined;
    }
    this.refuse(value, `was ignored: ${reason}`);
    return undefined;
  }

  private refuse(value: unknown, what: string): void {
    const n = ++this.refused.frames;
    let shape: string;
    try {
      shape = sketch(value);
    } catch {
      shape = "a frame";
    }
    this.refused.last = `${shape} ${what}`;
    if (n <= LOGGED_IN_FULL) this.options.note(`protocol noise: a frame from the server (${oneLine(shape, 300)}) ${oneLine(what, 300)}`);
    else if (n % 1000 === 0) this.options.note(`protocol noise: ${n} frames refused so far (the last: ${oneLine(this.refused.last, 300)})`);
  }

  /** A callback into the SDK (or ours) that throws is logged, never thrown into the transport that called it. */
  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.failedIn(what, err);
    }
  }

  private failedIn(what: string, err: unknown): void {
    this.refused.frames++;
    this.options.note(`the client failed in ${what} (ignored): ${oneLine(String((err as Error)?.message ?? err), 300)}`);
  }
}
