/**
 * The MCP `Transport` over a spawned server process. Unlike the SDK's `StdioClientTransport` it
 * works with a process group (see stdio-process.ts), treats stdout lines that are not JSON-RPC as
 * log noise instead of errors, and reads lines in linear time with a 64 MiB message limit (the
 * SDK's ReadBuffer re-concatenates its whole buffer on every chunk and stops at 10 MiB). A leading
 * byte order mark is skipped. JSON that is not JSON-RPC goes to `oninvalid` (the frame guard, which
 * can fail the request it answers) or, without one, to the noise. Nothing read from the server can
 * throw out of the stream's callbacks.
 */
import { serializeMessage } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import type { ServerLog } from "./server-log.js";
import type { StdioServerProcess } from "./stdio-process.js";
import { formatBytes } from "../content.js";
import { isPlainResultResponse } from "./fast-checks.js";

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Why a JSON value is not a JSON-RPC message, in a few words (the schema's own union error says little). */
export function whyNotJsonRpc(v: unknown): string {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return `it is ${Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`}, not a JSON-RPC object`;
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return 'its "jsonrpc" is not "2.0"';
  const e = m.error as Record<string, unknown> | undefined;
  if ("error" in m && (typeof e !== "object" || e === null)) return 'its "error" is not an object';
  if (e && !Number.isInteger(e.code)) return "its error code is not an integer";
  if (e && typeof e.message !== "string") return "its error has no message";
  if ("method" in m && typeof m.method !== "string") return 'its "method" is not a string';
  return "it is not a valid JSON-RPC message";
}

/** Splits a byte stream into lines without re-copying what it already holds. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const from = start;
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const total = this.size + nl - from;
      if (total > this.maxBytes) {
        this.reset();
        this.onOverflow();
        continue;
      }
      if (!this.parts.length) {
        // The common case, a whole line inside this chunk: decode it in place (no copy, no subarray).
        this.onLine(chunk.toString("utf8", from, nl));
        continue;
      }
      const line = Buffer.concat([...this.parts, chunk.subarray(from, nl)], total);
      this.reset();
      this.onLine(line.toString("utf8"));
    }
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) {
        this.reset();
        this.skipping = true;
        this.onOverflow();
      } else this.parts.push(rest);
    }
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
  }
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** JSON that is not JSON-RPC (set by the frame guard; without it such lines are noise). */
  oninvalid: ((value: unknown, reason: string) => void) | undefined = undefined;
  /** Lines on stdout that were not JSON-RPC (banners, stray console.log). */
  readonly noise = { lines: 0, last: "" };
  /** Set when we closed the connection ourselves because the server misbehaved. */
  closeReason: string | undefined;
  private closed = false;

  constructor(
    readonly process: StdioServerProcess,
    private readonly log: ServerLog,
    private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    const proc = this.process;
    if (proc.exit) throw new Error(proc.describeExit());
    const splitter = new LineSplitter(
      this.maxMessageBytes,
      (line) => this.handleLine(line),
      () => {
        this.closeReason = `the server sent a message larger than ${formatBytes(this.maxMessageBytes)}`;
        this.log.note(this.closeReason);
        this.onerror?.(new Error(this.closeReason));
        void this.close();
      },
    );
    proc.child.stdout?.on("data", (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (err) {
        // Nothing a server writes may throw into the stream's callback (that would crash the host).
        this.log.note(`stdout: a line could not be handled (ignored): ${(err as Error)?.message ?? String(err)}`);
      }
    });
    void proc.closed.then(() => this.finish());
  }

  /** A line that is not JSON-RPC: counted (connect errors mention it), and logged unless `logged` elsewhere. */
  private noiseLine(line: string, logged = false): void {
    this.noise.lines++;
    this.noise.last = line.length > 120 ? `${line.slice(0, 119)}…` : line;
    if (!logged) this.log.write(`[stdout, not JSON-RPC] ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}\n`);
  }

  private handleLine(raw: string): void {
    let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.noiseLine(line);
    }
    // A plain result response (most of what a busy connection reads) needs no copy by zod.
    const parsed = isPlainResultResponse(value) ? { success: true as const, data: value } : JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      // The guard logs it (and fails the request it may answer).
      this.noiseLine(line, !!this.oninvalid);
      this.oninvalid?.(value, whyNotJsonRpc(value));
      return;
    }
    const message = parsed.data as JSONRPCMessage;
    // The SDK runs notification handlers a microtask later but handles responses at once, so a
    // progress notification read just before its result would find the request gone. Handing
    // responses over a microtask later keeps them in order.
    if ("id" in message && ("result" in message || "error" in message)) queueMicrotask(() => this.onmessage?.(message));
    else this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process.child.stdin;
    if (this.closed || !stdin || !stdin.writable) return Promise.reject(new Error("Not connected"));
    // Messages sent in one tick (calls in flight together) leave in one write: one syscall, not one each.
    if (!stdin.writableCorked) {
      stdin.cork();
      process.nextTick(() => stdin.uncork());
    }
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        stdin.off("drain", done);
        stdin.off("close", done);
        resolve();
      };
      stdin.once("drain", done);
      stdin.once("close", done);
    });
  }

  async close(): Promise<void> {
    await this.process.stop();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
