/**
 * The audit log: append-only JSONL, one record per registration, call, command and plugin event.
 * Records are appended with a synchronous write on an O_APPEND descriptor. Call records are
 * write-ahead: a call's `start` record (tool, subject, decision, redacted input) is on disk before the
 * gate hands the call to its tool (`begin`, awaited), and its `call` record with the outcome before the
 * caller sees the result (`queue`). Records queued together share one `writeSync`: starts when the tick's
 * microtasks have run (process.nextTick: every call that starts in this tick), outcomes in a microtask the
 * first of them queues (the gate queues a record before its call's promise resolves, and microtasks run
 * in order). A host killed mid-call leaves a start with no outcome.
 *
 * No record is glued to another: a write is repeated until all of it is on disk, one cut short (a full
 * disk) is ended with a newline before the next, and a log whose last line a crash left unfinished gets
 * one when it is opened. While the log cannot be written, calls are refused (`refusal`) unless
 * `audit.onError` is "warn". A log past `audit.maxBytes` is rotated when a host opens it (audit-files.ts).
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import path from "node:path";
import { openPrivateAppend } from "../../kit/fs/atomic-write.js";
import { rotateIfLarge } from "../../kit/audit-files.js";
import { errorMessage } from "../../kit/errors.js";
import { redactBatch, redactString, summaryJson } from "../../kit/text/redact.js";
import { ensureAgentIgnores } from "../config/local-settings.js";
import type { AuditKind } from "../types.js";

function ignoreInAgentDir(dir: string, entry: string): void {
  try {
    ensureAgentIgnores(dir, entry);
  } catch {
    /* a read-only folder: the log is still written */
  }
}

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
  /** Who asked for the call, when not the host's own loop or CLI (`CallOptions.caller`). */
  caller?: string;
  /** The subagent that made the call, and the call that started it. */
  agent?: string;
  parentCallId?: string;
}

/** Logs with records waiting for their microtask; written on exit too (a `process.exit()` in between). */
const unwritten = new Set<AuditLog>();
let exitHook = false;

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

let lastMs = -1;
let lastIso = "";
/** `new Date().toISOString()`, formatted once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface AuditOptions {
  /** A log that cannot be written refuses calls (`refusal`); false: they run unrecorded, with one warning. */
  failClosed?: boolean;
  maxBytes?: number;
  keep?: number;
}

/** How often a failing log is tried again when a call asks (a disk that filled up may have room again). */
const RETRY_MS = 1000;

export class AuditLog {
  private fd: number | undefined;
  /** Why the last write failed; cleared by the next that succeeds. */
  private failure: string | undefined;
  private failedAt = 0;
  private reported = false;
  /** The last write was cut short: the next one starts on a line of its own. */
  private torn = false;
  /** Records waiting for their write, and their times. */
  private queued: AuditRecord[] = [];
  private times: string[] = [];
  private readonly flushQueued = () => {
    this.inMicrotask = false;
    this.flush();
  };
  private readonly flushTick = () => {
    this.inTick = false;
    this.flush();
  };
  /** Flushes already scheduled: a microtask (for `queue`), a tick (for starts and outcomes). */
  private inMicrotask = false;
  private inTick = false;
  /** Settles when the queued start records are written: with undefined, or why they could not be. */
  private batch: { promise: Promise<string | undefined>; resolve: (refusal: string | undefined) => void } | undefined;
  /** Argument summaries by the (frozen) arguments object: made once for a call's start and outcome records. */
  private readonly summaries = new WeakMap<object, string>();
  private sessionJson: string | undefined;

  constructor(
    readonly file: string | undefined,
    public sessionId: string,
    private readonly onError: (message: string) => void = () => {},
    private readonly options: AuditOptions = {},
  ) {}

  /**
   * Why a call may not run now: the log cannot be written and calls fail closed. Undefined when it can,
   * or when `audit.onError` is "warn". A failing log is tried again (at most once a second) before a refusal.
   */
  refusal(): string | undefined {
    if (this.failure === undefined || this.options.failClosed === false) return undefined;
    // The probe is a line ending (a blank line, which readers skip) or what ends a line cut short.
    if (Date.now() - this.failedAt >= RETRY_MS) this.writeText(this.torn ? "" : "\n");
    if (this.failure === undefined) return undefined;
    return this.refusalMessage();
  }

  private refusalMessage(): string {
    return `Not run: the audit log ${this.file} cannot be written (${this.failure}), and every call must be recorded. Free space (or fix the folder), or set audit.onError to "warn" to run calls unrecorded.`;
  }

  /** The conversation went on as another session (resumed, forked): later records carry its id. */
  setSession(id: string): void {
    this.flush();
    this.sessionId = id;
    this.sessionJson = undefined;
  }

  /** Write a record now (with any queued before it, in order). */
  write(record: AuditRecord): void {
    if (!this.file) return;
    this.queued.push(record);
    this.times.push(isoNow());
    this.flush();
  }

  /**
   * Queue a record: it is written by a microtask queued now, so before any promise resolved after this
   * call is seen by its handlers. Arguments are summarized (redacted, shortened) then, as they are at
   * the end of the current tick.
   */
  queue(record: AuditRecord): void {
    if (!this.enqueue(record) || this.inMicrotask) return;
    this.inMicrotask = true;
    queueMicrotask(this.flushQueued);
  }

  /**
   * Write-ahead: queue a call's `start` record (`kind: "start"`, `outcome: "started"`). The promise settles once it is on disk (undefined) or
   * could not be written while calls fail closed (the reason): the gate runs the call only after it. The
   * starts of one tick share one write. Undefined when there is no log.
   */
  begin(record: AuditRecord): Promise<string | undefined> | undefined {
    if (!this.enqueue(record)) return undefined;
    this.scheduleTick();
    if (!this.batch) {
      let resolve!: (refusal: string | undefined) => void;
      const promise = new Promise<string | undefined>((r) => (resolve = r));
      this.batch = { promise, resolve };
    }
    return this.batch.promise;
  }

  private scheduleTick(): void {
    if (this.inTick) return;
    this.inTick = true;
    process.nextTick(this.flushTick);
  }

  /** Add a record to the queue (false without a log); the first queued is flushed on exit too. */
  private enqueue(record: AuditRecord): boolean {
    if (!this.file) return false;
    this.times.push(isoNow());
    if (this.queued.push(record) > 1) return true;
    unwritten.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once("exit", () => {
        for (const log of unwritten) log.flush();
      });
    }
    return true;
  }

  /** Write every queued record now (one `writeSync`). */
  flush(): void {
    const queue = this.queued;
    const times = this.times;
    if (!queue.length) return;
    this.queued = [];
    this.times = [];
    unwritten.delete(this);
    const batch = this.batch;
    this.batch = undefined;
    // One env read for the whole batch (see redactBatch).
    const text = redactBatch(() => {
      let out = "";
      for (let i = 0; i < queue.length; i++) out += `${this.line(times[i], queue[i])}\n`;
      return out;
    });
    this.writeText(text);
    batch?.resolve(this.failure === undefined || this.options.failClosed === false ? undefined : this.refusalMessage());
  }

  /** Append `text` whole, after a newline if the last write was cut short; a failure is kept in `failure`. */
  private writeText(text: string): void {
    try {
      this.fd ??= this.open();
      const buf = Buffer.from(this.torn ? `\n${text}` : text, "utf8");
      this.torn = true;
      for (let done = 0; done < buf.length; ) done += writeSync(this.fd, buf, done, buf.length - done);
      this.torn = false;
      this.failure = undefined;
    } catch (err) {
      this.failure = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
      this.failedAt = Date.now();
      // Opened again at the next try: the file may have been moved, or its disk replaced.
      this.closeFd();
      if (this.reported) return;
      // Said once; then calls are refused (or, with audit.onError "warn", run unrecorded).
      this.reported = true;
      const then = this.options.failClosed === false ? "calls run unrecorded (audit.onError is \"warn\")" : 'tool calls are refused until it is (audit.onError: "warn" runs them unrecorded)';
      this.onError(`audit log ${this.file} is not writable: ${(err as Error).message}; ${then}`);
    }
  }

  /** Open for appending (rotated first when past maxBytes), ending a line a crash left unfinished. */
  private open(): number {
    const dir = path.dirname(this.file!);
    mkdirSync(dir, { recursive: true });
    rotateIfLarge(this.file!, this.options.maxBytes, this.options.keep);
    // 0600 whatever the umask, an older 0644 log included: arguments are redacted, but not everything secret is known.
    const fd = openPrivateAppend(this.file!);
    // In the project's .agent folder: kept out of git with the rest of what is this machine's own.
    if (path.basename(dir) === ".agent") ignoreInAgentDir(dir, path.basename(this.file!));
    this.torn = !endsWithNewline(this.file!);
    return fd;
  }

  private line(time: string, record: AuditRecord): string {
    try {
      return this.json(time, record, true);
    } catch (err) {
      // Arguments that cannot be summarized or serialized (a throwing getter, a BigInt): keep the record, say why.
      try {
        return this.json(time, record, false, redactString(errorMessage(err)).slice(0, 200));
      } catch {
        // Never throw from the write (it runs in a microtask): a placeholder says a record was lost.
        return `{"time":${str(time)},"session":${str(this.sessionId)},"unserializable":"this record could not be written"}`;
      }
    }
  }

  /**
   * The record as one JSON line, assembled by hand in a fixed field order (twice as fast as building an
   * object for JSON.stringify); every string goes through str(), arguments through summaryJson().
   */
  private json(time: string, r: AuditRecord, payload: boolean, unserializable?: string): string {
    let out = `{"time":"${time}","session":${(this.sessionJson ??= str(this.sessionId))},"kind":${str(r.kind)},"source":${str(r.source)},"name":${str(r.name)}`;
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
    this.flush();
    this.closeFd();
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
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
