/**
 * The MCP `Transport` over a spawned server process. Unlike the SDK's `StdioClientTransport` it
 * works with a process group (see stdio-process.ts), treats stdout lines that are not JSON-RPC as
 * log noise instead of errors, and reads lines in linear time with a 64 MiB message limit (the
 * SDK's ReadBuffer re-concatenates its whole buffer on every chunk and stops at 10 MiB).
 */
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ServerLog } from "./server-log.js";
import type { StdioServerProcess } from "./stdio-process.js";
import { formatBytes } from "./content.js";

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

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
    proc.child.stdout?.on("data", (chunk: Buffer) => splitter.push(chunk));
    void proc.closed.then(() => this.finish());
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      this.noise.lines++;
      this.noise.last = line.length > 120 ? `${line.slice(0, 119)}…` : line;
      this.log.write(`[stdout, not JSON-RPC] ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}\n`);
      return;
    }
    // The SDK runs notification handlers a microtask later but handles responses at once, so a
    // progress notification read just before its result would find the request gone. Handing
    // responses over a microtask later keeps them in order.
    if ("id" in message && ("result" in message || "error" in message)) queueMicrotask(() => this.onmessage?.(message));
    else this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process.child.stdin;
    if (this.closed || !stdin || !stdin.writable) return Promise.reject(new Error("Not connected"));
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
