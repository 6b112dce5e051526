/**
 * The audit log's file: one JSON line per record, appended with a synchronous write on an O_APPEND
 * descriptor (`appendAuditFile`). The host's default audit sink (`createHost({ auditSink })`); the host
 * decides when records are written (write-ahead starts, outcomes before the caller sees them) and what a
 * sink that cannot write means (calls refused unless `audit.onError` is "warn"); this file only stores.
 *
 * No record is glued to another: a write is repeated until all of it is on disk, one cut short (a full
 * disk) is ended with a newline before the next, and a log whose last line a crash left unfinished gets
 * one when it is opened. A log past `maxBytes` is rotated when it is opened (audit-files.ts); in a
 * project's `.agent` folder it is listed in `.agent/.gitignore`. Arguments, details and errors are
 * redacted and shortened as they are written.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import path from "node:path";
import { openPrivateAppend } from "./fs/atomic-write.js";
import { ensureAgentIgnores } from "./fs/agent-ignores.js";
import { rotateIfLarge } from "./audit-files.js";
import { errorMessage } from "./errors.js";
import { redactBatch, redactString, summaryJson } from "./text/redact.js";

/**
 * The fields of an audit record, in the order the file writes them: agent-host's `AuditRecord` narrows
 * `kind` and `decision` (declared here once, since kit imports nothing of the host).
 */
export interface AuditFileRecord {
  kind: string;
  /** Plugin or MCP server. */
  source: string;
  name: string;
  /** The tool call this record belongs to, if any. */
  callId?: string;
  /** Who asked for the call, when not the host's own loop or CLI (`CallOptions.caller`). */
  caller?: string;
  /** The subagent that made the call, and the call that started it. */
  agent?: string;
  parentCallId?: string;
  args?: unknown;
  decision?: string;
  /** The rule or mode that decided. */
  by?: string;
  outcome: string;
  durationMs?: number;
  outputBytes?: number;
  truncated?: boolean;
  error?: string;
  detail?: unknown;
}

/** Records to append as one write: their session, and each one's time (ISO 8601). */
export interface AuditFileBatch {
  session: string;
  records: readonly AuditFileRecord[];
  times: readonly string[];
}

let lastMs = -1;
let lastIso = "";
/** A record's time: `new Date().toISOString()`, formatted once per millisecond (a batch's `times`). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface AuditFileOptions {
  /** Rotate the file when a host opens it at this size or more (default 20 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 5). */
  keep?: number;
}

/** The JSONL audit sink for `file` (absolute): what `createHost` uses when given no `auditSink`. */
export function appendAuditFile(file: string, options: AuditFileOptions = {}): AuditFile {
  return new AuditFile(file, options);
}

/** Characters JSON.stringify escapes (quotes, backslash, controls, lone surrogates are caught by the surrogate range). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** A string as JSON: quoted as is when nothing needs escaping (the common case), else by JSON.stringify. */
function str(s: string): string {
  if (typeof s !== "string") return JSON.stringify(s) ?? "null"; // a plugin's record may hold anything
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}
/** A number as JSON (NaN and infinities are null, as JSON.stringify writes them). */
function num(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}

/**
 * `n` rounded to hundredths, written as JSON.stringify writes Math.round(n * 100) / 100, but from the
 * integer (formatting a fraction costs several times more than an integer).
 */
function hundredths(n: number): string {
  const h = Math.round(n * 100);
  if (!Number.isSafeInteger(h) || h < 0) return num(h / 100);
  const whole = Math.floor(h / 100);
  const frac = h % 100;
  if (frac === 0) return `${whole}`;
  return frac % 10 === 0 ? `${whole}.${frac / 10}` : `${whole}.${frac < 10 ? "0" : ""}${frac}`;
}

export class AuditFile {
  private fd: number | undefined;
  /** The last write was cut short: the next one starts on a line of its own. */
  private torn = false;
  /** Argument summaries by the (frozen) arguments object: made once for a call's start and outcome records. */
  private readonly summaries = new WeakMap<object, string>();
  private session: string | undefined;
  private sessionJson = "";

  constructor(
    readonly file: string,
    private readonly options: AuditFileOptions = {},
  ) {}

  /**
   * Append the records as one write, all of it on disk when this returns; throws what failed (the
   * descriptor is then closed: the next write opens the file again, which may have moved or got room).
   * An empty batch writes a line ending (a blank line, which readers skip, or the end of a line cut short).
   */
  append(batch: AuditFileBatch): void {
    const { records, times } = batch;
    if (batch.session !== this.session) {
      this.session = batch.session;
      this.sessionJson = str(batch.session);
    }
    let text = this.torn ? "" : "\n";
    // One env read for the whole batch (see redactBatch).
    if (records.length)
      text = redactBatch(() => {
        let out = "";
        for (let i = 0; i < records.length; i++) out += `${this.line(times[i], records[i])}\n`;
        return out;
      });
    try {
      this.fd ??= this.open();
      const buf = Buffer.from(this.torn ? `\n${text}` : text, "utf8");
      this.torn = true;
      for (let done = 0; done < buf.length; ) done += writeSync(this.fd, buf, done, buf.length - done);
      this.torn = false;
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Open for appending (rotated first when past maxBytes), ending a line a crash left unfinished. */
  private open(): number {
    const dir = path.dirname(this.file);
    mkdirSync(dir, { recursive: true });
    rotateIfLarge(this.file, this.options.maxBytes, this.options.keep);
    // 0600 whatever the umask, an older 0644 log included: arguments are redacted, but not everything secret is known.
    const fd = openPrivateAppend(this.file);
    // In the project's .agent folder: kept out of git with the rest of what is this machine's own.
    if (path.basename(dir) === ".agent") ignoreInAgentDir(dir, path.basename(this.file));
    this.torn = !endsWithNewline(this.file);
    return fd;
  }

  private line(time: string, record: AuditFileRecord): string {
    try {
      return this.json(time, record, true);
    } catch (err) {
      // Arguments that cannot be summarized or serialized (a throwing getter, a BigInt): keep the record, say why.
      try {
        return this.json(time, record, false, redactString(errorMessage(err)).slice(0, 200));
      } catch {
        // Never throw from the write (it runs in a microtask): a placeholder says a record was lost.
        return `{"time":${str(time)},"session":${this.sessionJson},"unserializable":"this record could not be written"}`;
      }
    }
  }

  /**
   * The record as one JSON line, assembled by hand in a fixed field order (twice as fast as building an
   * object for JSON.stringify); every string goes through str(), arguments through summaryJson().
   */
  private json(time: string, r: AuditFileRecord, payload: boolean, unserializable?: string): string {
    let out = `{"time":"${time}","session":${this.sessionJson},"kind":${str(r.kind)},"source":${str(r.source)},"name":${str(r.name)}`;
    if (r.callId) out += `,"callId":${str(r.callId)}`;
    if (r.caller) out += `,"caller":${str(r.caller)}`;
    if (r.agent) out += `,"agent":${str(r.agent)}`;
    if (r.parentCallId) out += `,"parentCallId":${str(r.parentCallId)}`;
    if (payload && r.args !== undefined) {
      const args = this.argsJson(r.args);
      if (args !== undefined) out += `,"args":${args}`;
    }
    if (r.decision) out += `,"decision":${str(r.decision)}`;
    if (r.by) out += `,"by":${str(r.by)}`;
    out += `,"outcome":${str(r.outcome)}`;
    if (r.durationMs !== undefined) out += `,"durationMs":${hundredths(r.durationMs)}`;
    if (r.outputBytes !== undefined) out += `,"outputBytes":${num(r.outputBytes)}`;
    if (r.truncated !== undefined) out += `,"truncated":${r.truncated ? "true" : "false"}`;
    if (r.error) out += `,"error":${str(redactString(r.error).slice(0, 500))}`;
    if (payload && r.detail !== undefined) {
      const detail = summaryJson(r.detail);
      if (detail !== undefined) out += `,"detail":${detail}`;
    }
    if (unserializable !== undefined) out += `,"unserializable":${str(unserializable)}`;
    return `${out}}`;
  }

  /** A call's argument summary (redaction included: most of what a record costs), made once for its two records. */
  private argsJson(args: unknown): string | undefined {
    if (typeof args !== "object" || args === null) return summaryJson(args);
    const known = this.summaries.get(args);
    if (known !== undefined) return known;
    const json = summaryJson(args);
    if (json !== undefined) this.summaries.set(args, json);
    return json;
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
  }
}

function ignoreInAgentDir(dir: string, entry: string): void {
  try {
    ensureAgentIgnores(dir, entry);
  } catch {
    /* a read-only folder: the log is still written */
  }
}

/** Whether the file is empty or its last byte is a newline (read apart: the append descriptor cannot read). */
function endsWithNewline(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } catch {
    return true;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
