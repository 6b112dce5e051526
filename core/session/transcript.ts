/**
 * The conversation as committed: after each finished step, what is new goes to the `transcript` hook as
 * records (the messages appended since the last commit; a conversation that was replaced, compacted,
 * shortened, cleared or rewritten by a plugin as one record holding it from there on), and `session.resume`
 * asks the `sessionLoad` hook for a saved conversation. Writing and reading transcripts is a plugin's
 * (plugins/sessions/); the kernel only says what was committed.
 */
import { FirstAnswer } from "../hooks/hook-adapters.js";
import type { SessionLoadAnswer, SessionLoadRequest, TranscriptBatch, TranscriptRecord } from "../hooks/hook-types.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { ModelMessage, ModelUsage } from "../loop/model.js";
import { freezeCopy } from "../../kit/freeze.js";

const now = () => new Date().toISOString();

/** A `{ file }` answer: where the session's transcript is. */
const isFile = (out: unknown) => typeof (out as { file?: unknown } | null)?.file === "string";

/** A `{ session }` or `{ error }` answer. */
function isLoadAnswer(out: unknown): boolean {
  const a = out as { session?: { id?: unknown; messages?: unknown; usage?: unknown }; error?: unknown } | null;
  return typeof a === "object" && a !== null && (typeof a.error === "string" || (typeof a.session?.id === "string" && Array.isArray(a.session.messages) && typeof a.session.usage === "object"));
}

export class Transcript {
  /** The messages as last committed, by identity: a different object at an index means a rewrite. */
  private written: ModelMessage[] = [];
  private pending: TranscriptRecord[] = [];
  private where: { id: string; file: string | undefined } | undefined;
  /** The model the run in progress uses (`--model` included): it wins over the session's in the records. */
  runModel: string | undefined;

  constructor(
    private readonly hooks: RawHooks,
    private readonly info: () => { sessionId: string; model: string | undefined },
  ) {}

  usage(u: ModelUsage): void {
    this.pending.push({ type: "usage", time: now(), inputTokens: u.inputTokens, outputTokens: u.outputTokens });
  }

  /** Commit what changed in `messages` since the last commit (and any usage noted since). */
  sync(messages: readonly ModelMessage[], reason = "rewritten"): void {
    const records = this.take();
    const prefix = this.written.length <= messages.length && this.written.every((m, i) => messages[i] === m);
    if (prefix) for (const m of messages.slice(this.written.length)) records.push({ type: "message", time: now(), message: m });
    else if (messages.length === 0) records.push({ type: "clear", time: now() });
    else records.push({ type: "rewrite", time: now(), reason, messages: [...messages] });
    this.written = [...messages];
    this.send(records);
  }

  /** A compaction replaced the conversation: one record with the summary and the conversation after it. */
  compaction(messages: readonly ModelMessage[], rec: { trigger: "manual" | "auto"; summary: string; tokensBefore: number; tokensAfter: number }): void {
    const records = this.take();
    records.push({ type: "compaction", time: now(), ...rec, messages: [...messages] });
    this.written = [...messages];
    this.send(records);
  }

  /** The conversation goes on from `messages` as they are already saved (a resume), or from nothing (a clear, a fork). */
  restart(messages: readonly ModelMessage[] = []): void {
    this.written = [...messages];
    this.pending = [];
  }

  /** Ask the `sessionLoad` handlers for a saved conversation; undefined when none answers (no sessions plugin). */
  async load(request: SessionLoadRequest): Promise<SessionLoadAnswer | undefined> {
    if (!this.hooks.sessionLoad.isUsed()) return undefined;
    const collector = new FirstAnswer<SessionLoadRequest, SessionLoadAnswer>(freezeCopy(request), "{ session: { id, messages, usage } } or { error }", isLoadAnswer);
    await this.hooks.sessionLoad.promise(collector);
    return collector.answer;
  }

  /** Where the current session's transcript is, as its `transcript` handler says (asked once per session id). */
  get file(): string | undefined {
    const { sessionId } = this.info();
    if (this.where?.id !== sessionId) this.send([]);
    return this.where?.file;
  }

  private take(): TranscriptRecord[] {
    const records = this.pending;
    this.pending = [];
    return records;
  }

  private send(records: TranscriptRecord[]): void {
    if (!this.hooks.transcript.isUsed()) return;
    const { sessionId, model } = this.info();
    const collector = new FirstAnswer<TranscriptBatch, { file: string }>(freezeCopy({ sessionId, model: this.runModel ?? model, records }), "{ file: string }", isFile);
    this.hooks.transcript.call(collector);
    this.where = { id: sessionId, file: collector.answer?.file };
  }
}
