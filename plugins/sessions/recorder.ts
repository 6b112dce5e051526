/**
 * Writes a host's transcript from what the kernel commits (the `transcript` hook): each batch is one
 * write (fsync follows in the background); the first write of a session starts its file with a `meta`
 * record, the first after a resume with a `resume` record. `load` answers `session.resume` (the
 * `sessionLoad` hook): a saved session of this project, or a copy of it (`forkId`).
 */
import type { SessionLoadAnswer, SessionLoadRequest, TranscriptBatch } from "../../core/embed.js";
import { AgentError } from "../../kit/index.js";
import { findSession, pruneSessions, readSession, repairSession, SessionWriter, type SessionMeta, type SessionRecord } from "./store.js";

export interface RecorderOptions {
  projectRoot: string;
  cwd: string;
  version: string;
  /** False: nothing is written (config `sessions.enabled: false`). */
  enabled: boolean;
  limits: { maxAgeDays?: number; maxCount?: number };
  notice(level: "info" | "warn", message: string): void;
}

const now = () => new Date().toISOString();

export class SessionRecorder {
  private writer: SessionWriter | undefined;
  private id: string | undefined;
  private forkedFrom: { id: string; from: string } | undefined;
  private resumed = false;

  constructor(private readonly options: RecorderOptions) {}

  /** The transcript's file for `sessionId` (undefined when sessions are off or a write failed). */
  file(sessionId: string): string | undefined {
    return this.options.enabled ? this.writerFor(sessionId).file : undefined;
  }

  /** A batch the kernel committed. */
  commit(batch: TranscriptBatch): void {
    const writer = this.writerFor(batch.sessionId);
    // Nothing said yet: no file for a conversation that has not started.
    if (!writer.exists && !batch.records.some((r) => r.type === "message" || r.type === "rewrite")) return;
    this.write(batch.records as SessionRecord[], batch.model);
  }

  /**
   * Load session `id` (`last`: the newest) of this project. Without `forkId` the conversation goes on in
   * that session (its id, its file); with it, a new session starts as a copy.
   */
  load(request: SessionLoadRequest): SessionLoadAnswer {
    let found, loaded;
    try {
      found = findSession(this.options.projectRoot, request.id);
      loaded = readSession(found.file);
    } catch (err) {
      if (err instanceof AgentError) return { error: err.message };
      throw err;
    }
    this.switchTo(request.forkId ?? found.id);
    if (request.forkId) this.forkedFrom = { id: request.forkId, from: found.id };
    else {
      this.resumed = true;
      if (loaded.damaged && this.options.enabled) {
        try {
          repairSession(found.file, loaded);
        } catch (err) {
          this.options.notice("warn", `The damaged transcript ${found.file} could not be repaired (${(err as Error).message}).`);
        }
      }
    }
    return { session: { id: found.id, messages: loaded.messages, usage: loaded.usage, ...(loaded.damaged ? { damaged: loaded.damaged } : {}) } };
  }

  close(): void {
    this.writer?.close();
  }

  /** Another session (a clear, a resume, a fork): its own file, written from its first record. */
  private switchTo(id: string): void {
    this.writer?.close();
    this.writer = undefined;
    this.id = id;
    this.resumed = false;
    if (this.forkedFrom?.id !== id) this.forkedFrom = undefined;
  }

  private writerFor(sessionId: string): SessionWriter {
    if (this.id !== sessionId) this.switchTo(sessionId);
    return (this.writer ??= new SessionWriter(this.options.projectRoot, sessionId));
  }

  private meta(id: string, model: string | undefined): SessionRecord[] {
    const forked = this.forkedFrom?.id === id ? { forkedFrom: this.forkedFrom.from } : {};
    const meta: SessionMeta = { id, started: now(), cwd: this.options.cwd, model, version: this.options.version, ...forked };
    // Pruning happens as a new session starts, never touching this one.
    try {
      pruneSessions(this.options.projectRoot, this.options.limits, id);
    } catch {
      /* a folder we cannot list: nothing pruned */
    }
    return [{ type: "meta", ...meta }];
  }

  private write(records: SessionRecord[], model: string | undefined): void {
    if (!this.options.enabled || !records.length) return;
    try {
      const writer = this.writer!;
      if (this.resumed && writer.exists) {
        records = [{ type: "resume", time: now(), model, version: this.options.version }, ...records];
        this.resumed = false;
      }
      writer.append(records, () => this.meta(writer.id, model));
    } catch (err) {
      this.options.notice("warn", `The session transcript could not be written (${(err as Error).message}); this conversation may not be resumable.`);
      this.options.enabled = false;
    }
  }
}
