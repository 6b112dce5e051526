/**
 * Keeps a host's conversation and its transcript in step. The loop calls `sync` after each finished
 * step; what is new is appended (one write, fsync), and a conversation that was replaced (compacted,
 * shortened, cleared, rewritten by a plugin) is written as one record holding the conversation from
 * there on. `resume` loads a saved session into the host's conversation, or a copy of it (`fork`).
 */
import type { ModelMessage, ModelUsage } from "../loop/model.js";
import {
  findSession,
  pruneSessions,
  readSession,
  repairSession,
  SessionWriter,
  type SessionMeta,
  type SessionRecord,
} from "./session-store.js";

export interface RecorderOptions {
  projectRoot: string;
  cwd: string;
  version: string;
  /** False: nothing is written (config `sessions.enabled: false`). */
  enabled: boolean;
  limits: { maxAgeDays?: number; maxCount?: number };
  model(): string | undefined;
  notice(level: "info" | "warn", message: string): void;
}

export interface ResumeResult {
  /** The id the conversation goes on under (a new one for a fork). */
  id: string;
  /** The session that was loaded. */
  from: string;
  forked: boolean;
  messages: number;
  /** Set when the transcript's tail was damaged and dropped. */
  damaged?: string;
}

const now = () => new Date().toISOString();

export class SessionRecorder {
  private writer: SessionWriter | undefined;
  /** The messages as last written, by identity: a different object at an index means a rewrite. */
  private written: ModelMessage[] = [];
  private pending: SessionRecord[] = [];
  private forkedFrom: string | undefined;
  private resumed = false;

  constructor(
    private readonly options: RecorderOptions,
    private id: string,
  ) {}

  get file(): string | undefined {
    return this.options.enabled ? this.writerFor().file : undefined;
  }

  /** The model the run in progress uses (`--model` included): it wins over the session's in the records. */
  runModel: string | undefined;

  private model(): string | undefined {
    return this.runModel ?? this.options.model();
  }

  private writerFor(): SessionWriter {
    return (this.writer ??= new SessionWriter(this.options.projectRoot, this.id));
  }

  private meta(): SessionRecord[] {
    const meta: SessionMeta = { id: this.id, started: now(), cwd: this.options.cwd, model: this.model(), version: this.options.version, ...(this.forkedFrom ? { forkedFrom: this.forkedFrom } : {}) };
    // Pruning happens as a new session starts, never touching this one.
    try {
      pruneSessions(this.options.projectRoot, this.options.limits, this.id);
    } catch {
      /* a folder we cannot list: nothing pruned */
    }
    return [{ type: "meta", ...meta }];
  }

  private write(records: SessionRecord[]): void {
    if (!this.options.enabled || !records.length) return;
    try {
      const writer = this.writerFor();
      if (this.resumed && writer.exists) {
        records = [{ type: "resume", time: now(), model: this.model(), version: this.options.version }, ...records];
        this.resumed = false;
      }
      writer.append(records, () => this.meta());
    } catch (err) {
      this.options.notice("warn", `The session transcript could not be written (${(err as Error).message}); this conversation may not be resumable.`);
      this.options.enabled = false;
    }
  }

  usage(u: ModelUsage): void {
    this.pending.push({ type: "usage", time: now(), inputTokens: u.inputTokens, outputTokens: u.outputTokens });
  }

  /** Write what changed in `messages` since the last sync (and any usage noted since). */
  sync(messages: readonly ModelMessage[], reason = "rewritten"): void {
    const records = this.pending;
    this.pending = [];
    const prefix = this.written.length <= messages.length && this.written.every((m, i) => messages[i] === m);
    if (prefix) for (const m of messages.slice(this.written.length)) records.push({ type: "message", time: now(), message: m });
    else if (messages.length === 0) records.push({ type: "clear", time: now() });
    else records.push({ type: "rewrite", time: now(), reason, messages: [...messages] });
    this.written = [...messages];
    // Nothing said yet: no file for a conversation that has not started.
    if (!this.writerFor().exists && !records.some((r) => r.type === "message" || r.type === "rewrite")) return;
    this.write(records);
  }

  /** A compaction replaced the conversation: one record with the summary and the conversation after it. */
  compaction(messages: readonly ModelMessage[], rec: { trigger: "manual" | "auto"; summary: string; tokensBefore: number; tokensAfter: number }): void {
    const records = this.pending;
    this.pending = [];
    records.push({ type: "compaction", time: now(), ...rec, messages: [...messages] });
    this.written = [...messages];
    this.write(records);
  }

  /**
   * Load session `idOrPrefix` (`last`: the newest) of this project. Without `fork` the conversation
   * goes on in that session (its id, its file); with it, a new session starts as a copy.
   */
  resume(idOrPrefix: string, fork: boolean, newId: () => string): { result: ResumeResult; messages: ModelMessage[]; usage: { inputTokens: number; outputTokens: number } } {
    const found = findSession(this.options.projectRoot, idOrPrefix);
    const loaded = readSession(found.file);
    this.writer?.close();
    this.writer = undefined;
    this.pending = [];
    if (fork) {
      this.id = newId();
      this.forkedFrom = found.id;
      this.resumed = false;
      // The copy starts with the whole conversation, written by the next sync.
      this.written = [];
    } else {
      this.id = found.id;
      this.forkedFrom = undefined;
      this.resumed = true;
      this.written = [...loaded.messages];
      if (loaded.damaged && this.options.enabled) {
        try {
          repairSession(found.file, loaded);
        } catch (err) {
          this.options.notice("warn", `The damaged transcript ${found.file} could not be repaired (${(err as Error).message}).`);
        }
      }
    }
    return {
      result: { id: this.id, from: found.id, forked: fork, messages: loaded.messages.length, ...(loaded.damaged ? { damaged: loaded.damaged } : {}) },
      messages: loaded.messages,
      usage: loaded.usage,
    };
  }

  /** `/clear`: the conversation goes on as a new session (its file written with its first message); the old one stays resumable. */
  restart(id: string): void {
    this.writer?.close();
    this.writer = undefined;
    this.id = id;
    this.written = [];
    this.pending = [];
    this.forkedFrom = undefined;
    this.resumed = false;
  }

  get sessionId(): string {
    return this.id;
  }

  close(): void {
    this.writer?.close();
  }
}
