/**
 * The audit log: append-only JSONL, one record per registration, call, command and plugin event.
 * Each record is written with a synchronous append on an O_APPEND descriptor, so a record is in the
 * kernel before the call returns: a crash or `kill -9` of the host cannot lose a finished call.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { redactString, summarize } from "./redact.js";
import type { AuditKind } from "./types.js";

export interface AuditRecord {
  kind: AuditKind;
  /** Plugin or MCP server. */
  source: string;
  name: string;
  args?: unknown;
  decision?: "allow" | "deny" | "ask";
  /** The rule or mode that decided. */
  by?: string;
  outcome: string;
  durationMs?: number;
  outputBytes?: number;
  truncated?: boolean;
  error?: string;
  detail?: unknown;
  callId?: string;
}

export class AuditLog {
  private fd: number | undefined;
  private failed = false;

  constructor(
    readonly file: string | undefined,
    readonly sessionId: string,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  write(record: AuditRecord): void {
    if (!this.file || this.failed) return;
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      session: this.sessionId,
      kind: record.kind,
      source: record.source,
      name: record.name,
    };
    if (record.callId) line.callId = record.callId;
    if (record.args !== undefined) line.args = summarize(record.args);
    if (record.decision) line.decision = record.decision;
    if (record.by) line.by = record.by;
    line.outcome = record.outcome;
    if (record.durationMs !== undefined) line.durationMs = Math.round(record.durationMs * 100) / 100;
    if (record.outputBytes !== undefined) line.outputBytes = record.outputBytes;
    if (record.truncated !== undefined) line.truncated = record.truncated;
    if (record.error) line.error = redactString(record.error).slice(0, 500);
    if (record.detail !== undefined) line.detail = summarize(record.detail);
    try {
      if (this.fd === undefined) {
        mkdirSync(path.dirname(this.file), { recursive: true });
        this.fd = openSync(this.file, "a", 0o600);
      }
      writeSync(this.fd, JSON.stringify(line) + "\n");
    } catch (err) {
      // An unwritable audit log is reported once; it must not take tool calls down with it.
      this.failed = true;
      this.onError(`audit log ${this.file} is not writable: ${(err as Error).message}`);
    }
  }

  close(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        /* already closed */
      }
      this.fd = undefined;
    }
  }
}
