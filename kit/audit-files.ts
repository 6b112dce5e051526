/**
 * The audit log's files: rotation by size (`audit.jsonl` → `audit.jsonl.1` → … `.keep`, when a host opens
 * a log past `maxBytes`), and reading records from the end, newest first, across the rotated files, so
 * `agent audit` shows the last 20 of a million records without reading the million; or every record,
 * oldest first, one line in memory at a time (`streamAuditRecords`).
 */
import { closeSync, openSync, readSync, renameSync, rmSync, statSync } from "node:fs";

export const DEFAULT_AUDIT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_AUDIT_KEEP = 5;
const CHUNK = 64 * 1024;

/** The log and its rotated files, newest first (those that exist). */
export function auditLogFiles(file: string, keep = DEFAULT_AUDIT_KEEP): string[] {
  const all = [file, ...Array.from({ length: keep }, (_, i) => `${file}.${i + 1}`)];
  return all.filter((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  });
}

/** Rotate `file` when it is `maxBytes` or more: each rotated file moves one up, the oldest beyond `keep` goes. */
export function rotateIfLarge(file: string, maxBytes = DEFAULT_AUDIT_MAX_BYTES, keep = DEFAULT_AUDIT_KEEP): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return;
  }
  if (size < maxBytes) return;
  try {
    if (keep === 0) return rmSync(file, { force: true });
    rmSync(`${file}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i--) moveIfThere(`${file}.${i}`, `${file}.${i + 1}`);
    renameSync(file, `${file}.1`);
  } catch {
    /* another host rotated it at the same moment: its rotation stands */
  }
}

function moveIfThere(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** The lines of a file from its end, newest first, read in chunks (a line split across chunks is joined). */
export function* linesFromEnd(file: string): Generator<string> {
  const fd = openSync(file, "r");
  try {
    let pos = statSync(file).size;
    let rest = Buffer.alloc(0);
    while (pos > 0) {
      const size = Math.min(CHUNK, pos);
      pos -= size;
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, pos);
      const buf = Buffer.concat([chunk, rest]);
      let end = buf.length;
      for (let i = buf.length - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        if (end > i + 1) yield buf.subarray(i + 1, end).toString("utf8");
        end = i;
      }
      rest = buf.subarray(0, end);
    }
    if (rest.length) yield rest.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

export interface AuditTail {
  /** The records kept, oldest first. */
  records: Record<string, unknown>[];
  /** Records read that the filter left out. */
  skipped: number;
  /** Lines that are not a record (torn by a crash or a full disk). */
  unreadable: number;
  /** Whether everything was read (else the counts are of the part read). */
  complete: boolean;
}

/**
 * The last `count` records `keep` accepts, reading from the end of the log and then of its rotated files.
 * A call's write-ahead `start` record is left out once its `call` record (written after it) was seen; a
 * start with none (the host was killed mid-call, or the call is still running) is a call with "no outcome".
 */
export function readAuditTail(files: readonly string[], count: number, keep: (r: Record<string, unknown>) => boolean): AuditTail {
  const found: Record<string, unknown>[] = [];
  const ended = new Set<unknown>();
  let skipped = 0;
  let unreadable = 0;
  for (const file of files) {
    for (const line of linesFromEnd(file)) {
      if (!line.trim()) continue;
      let r = parseRecord(line);
      if (r?.kind === "call" && r.callId !== undefined) ended.add(r.callId);
      if (r?.kind === "start") {
        if (ended.has(r.callId)) continue;
        r = { ...r, kind: "call", outcome: "no outcome" };
      }
      if (!r) unreadable++;
      else if (!keep(r)) skipped++;
      else if (found.push(r) >= count) return { records: found.reverse(), skipped, unreadable, complete: false };
    }
  }
  return { records: found.reverse(), skipped, unreadable, complete: true };
}

/** The lines of a file from its start, read in chunks (a line split across chunks is joined). */
export function* linesFromStart(file: string): Generator<string> {
  const fd = openSync(file, "r");
  try {
    let rest = Buffer.alloc(0);
    const chunk = Buffer.alloc(CHUNK);
    for (let n = readSync(fd, chunk, 0, CHUNK, null); n > 0; n = readSync(fd, chunk, 0, CHUNK, null)) {
      const buf = rest.length ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        if (nl > start) yield buf.toString("utf8", start, nl);
        start = nl + 1;
      }
      rest = Buffer.from(buf.subarray(start));
    }
    if (rest.length) yield rest.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Every record `keep` accepts, oldest first, across the rotated files (`files` newest first, as
 * auditLogFiles lists them), handed to `emit` as read. A start record is held until its call record
 * (which replaces it); starts still held at the end (no outcome) follow. Returns the unreadable lines.
 */
export function streamAuditRecords(files: readonly string[], keep: (r: Record<string, unknown>) => boolean, emit: (r: Record<string, unknown>) => void): number {
  const started = new Map<unknown, Record<string, unknown>>();
  let unreadable = 0;
  for (const file of [...files].reverse()) {
    for (const line of linesFromStart(file)) {
      if (!line.trim()) continue;
      const r = parseRecord(line);
      if (!r) unreadable++;
      else if (r.kind === "start") started.set(r.callId, r);
      else {
        if (r.kind === "call") started.delete(r.callId);
        if (keep(r)) emit(r);
      }
    }
  }
  for (const r of started.values()) {
    const open = { ...r, kind: "call", outcome: "no outcome" };
    if (keep(open)) emit(open);
  }
  return unreadable;
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
