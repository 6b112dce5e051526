/**
 * The audit: one record per registration, call, command and plugin event, handed to the host's sink
 * (`AuditSink`; by default the JSONL file of kit/audit-file.ts). What is kept here is when records are
 * written and what a sink that cannot write means. Call records are write-ahead: a call's `start` record
 * (tool, subject, decision, input) is stored before the gate hands the call to its tool (`begin`,
 * awaited), and its `call` record with the outcome before the caller sees the result (`queue`). Records
 * queued together share one `append`: starts when the tick's microtasks have run (process.nextTick: every
 * call that starts in this tick), outcomes in a microtask the first of them queues (the gate queues a
 * record before its call's promise resolves, and microtasks run in order). A host killed mid-call leaves
 * a start with no outcome. While the sink cannot write, calls are refused (`refusal`) unless
 * `audit.onError` is "warn".
 */
import { appendAuditFile, isoNow, type AuditFileOptions, type AuditFileRecord } from "../../kit/audit-file.js";
import { errorMessage } from "../../kit/errors.js";
import type { AuditKind } from "../types.js";

/** One audit record (its fields, in the order the file writes them: kit's `AuditFileRecord`). */
export interface AuditRecord extends AuditFileRecord {
  kind: AuditKind;
  decision?: "allow" | "deny" | "ask";
}

/** Records a sink stores in one go, in order: the session they belong to, and each one's time (ISO 8601). */
export interface AuditBatch {
  session: string;
  records: readonly AuditRecord[];
  times: readonly string[];
}

/**
 * Where a host's audit records go (`createHost({ auditSink })`). The host calls `append` when records
 * must be stored, and relies on it: when it returns, they are (a call runs after its start record's
 * `append` returned). Arguments, details and errors come as the host has them: a sink redacts what it
 * keeps (kit's `summaryJson`, `redactString`), as the default file does.
 */
export interface AuditSink {
  /** The file the records go to, if any: named in messages, and never written by the tools. */
  readonly file?: string;
  /**
   * Store the batch before returning, or throw why not (calls are then refused unless `audit.onError`
   * is "warn", and the sink is tried again at most once a second). An empty batch asks whether the sink
   * can store again.
   */
  append(batch: AuditBatch): void;
  /** The host closed: release what the sink holds open. */
  close(): void;
}

/** Logs with records waiting for their microtask; written on exit too (a `process.exit()` in between). */
const unwritten = new Set<AuditLog>();
let exitHook = false;

/** For a log given as a file, its rotation too (kit/audit-file.ts). */
export interface AuditOptions extends AuditFileOptions {
  /** A log that cannot be written refuses calls (`refusal`); false: they run unrecorded, with one warning. */
  failClosed?: boolean;
}

/** How often a failing log is tried again when a call asks (a disk that filled up may have room again). */
const RETRY_MS = 1000;

export class AuditLog {
  private readonly sink: AuditSink | undefined;
  /** Why the last write failed; cleared by the next that succeeds. */
  private failure: string | undefined;
  private failedAt = 0;
  private reported = false;
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

  /** `sink`: where records go (a file path: the JSONL file of kit/audit-file.ts); undefined: nowhere. */
  constructor(
    sink: AuditSink | string | undefined,
    public sessionId: string,
    private readonly onError: (message: string) => void = () => {},
    private readonly options: AuditOptions = {},
  ) {
    this.sink = typeof sink === "string" ? appendAuditFile(sink, options) : sink;
  }

  /** The sink's file, if it writes one. */
  get file(): string | undefined {
    return this.sink?.file;
  }

  /**
   * Why a call may not run now: the log cannot be written and calls fail closed. Undefined when it can,
   * or when `audit.onError` is "warn". A failing log is tried again (at most once a second) before a refusal.
   */
  refusal(): string | undefined {
    if (this.failure === undefined || this.options.failClosed === false) return undefined;
    if (Date.now() - this.failedAt >= RETRY_MS) this.append([], []);
    if (this.failure === undefined) return undefined;
    return this.refusalMessage();
  }

  private refusalMessage(): string {
    return `Not run: the audit log${this.named()} cannot be written (${this.failure}), and every call must be recorded. Free space (or fix the folder), or set audit.onError to "warn" to run calls unrecorded.`;
  }

  private named(): string {
    return this.sink?.file ? ` ${this.sink.file}` : "";
  }

  /** The conversation went on as another session (resumed, forked): later records carry its id. */
  setSession(id: string): void {
    this.flush();
    this.sessionId = id;
  }

  /** Write a record now (with any queued before it, in order). */
  write(record: AuditRecord): void {
    if (!this.sink) return;
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
    if (!this.sink) return false;
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

  /** Write every queued record now (one `append`). */
  flush(): void {
    const queue = this.queued;
    const times = this.times;
    if (!queue.length) return;
    this.queued = [];
    this.times = [];
    unwritten.delete(this);
    const batch = this.batch;
    this.batch = undefined;
    this.append(queue, times);
    batch?.resolve(this.failure === undefined || this.options.failClosed === false ? undefined : this.refusalMessage());
  }

  /** Hand records to the sink; a failure is kept in `failure` and said once. */
  private append(records: AuditRecord[], times: string[]): void {
    try {
      this.sink!.append({ session: this.sessionId, records, times });
      this.failure = undefined;
    } catch (err) {
      this.failure = (err as NodeJS.ErrnoException)?.code ?? errorMessage(err);
      this.failedAt = Date.now();
      if (this.reported) return;
      // Said once; then calls are refused (or, with audit.onError "warn", run unrecorded).
      this.reported = true;
      const then = this.options.failClosed === false ? "calls run unrecorded (audit.onError is \"warn\")" : 'tool calls are refused until it is (audit.onError: "warn" runs them unrecorded)';
      this.onError(`audit log${this.named()} is not writable: ${errorMessage(err)}; ${then}`);
    }
  }

  close(): void {
    this.flush();
    this.sink?.close();
  }
}
