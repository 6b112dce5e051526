/**
 * Sessions on disk: one append-only JSONL transcript per conversation, `.agent/sessions/<id>.jsonl`
 * under the project root (folder 0700, files 0600; `.agent/.gitignore` lists `sessions/`). One record a
 * line: `meta` (id, started, cwd, model, version, forkedFrom), `resume`, `message` (a user, assistant
 * or tool message exactly as the loop keeps it, tool-call ids included), `usage`, `compaction` and
 * `rewrite` (the conversation from there on, when it was compacted or otherwise replaced), `clear`.
 * Each finished step (a prompt; a model turn with its tool results) is one synchronous write (fsync
 * follows in the background), so a crash or `kill -9` loses no finished turn; reading stops at the first broken line and goes
 * back to the last point where every tool call has its result.
 */
import { chmodSync, closeSync, existsSync, fsync, fsyncSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { AgentError, openPrivateAppend, SECRET_FILE_MODE, writeFileAtomic } from "../../kit/index.js";
import type { ModelMessage } from "../../core/index.js";
import { ensureAgentIgnores, type TranscriptRecord } from "../../core/embed.js";

export const SESSIONS_DIR = path.join(".agent", "sessions");
export const DEFAULT_SESSION_MAX_AGE_DAYS = 30;
export const DEFAULT_SESSION_MAX_COUNT = 100;

export interface SessionMeta {
  id: string;
  started: string;
  cwd: string;
  model?: string;
  version: string;
  forkedFrom?: string;
}

export type SessionRecord =
  | ({ type: "meta" } & SessionMeta)
  | { type: "resume"; time: string; model?: string; version: string }
  | TranscriptRecord;

/** What reading a transcript gave: the conversation to continue, and what was dropped, if anything. */
export interface LoadedSession {
  meta: SessionMeta;
  messages: ModelMessage[];
  usage: { inputTokens: number; outputTokens: number };
  /** Set when the tail was truncated or corrupted: what was kept, for a notice. */
  damaged?: string;
}

/** A line of `agent sessions`. */
export interface SessionSummary {
  id: string;
  started: string;
  updated: string;
  model?: string;
  /** Model turns (assistant messages) over the whole session, compacted ones included. */
  turns: number;
  /** The last prompt the user sent (first line, shortened). */
  lastPrompt: string;
  file: string;
}

export function sessionsDir(projectRoot: string): string {
  return path.join(projectRoot, SESSIONS_DIR);
}

export function sessionFile(projectRoot: string, id: string): string {
  return path.join(sessionsDir(projectRoot), `${id}.jsonl`);
}

const ROLES = new Set(["user", "assistant", "tool"]);
const isMessage = (m: unknown): m is ModelMessage =>
  !!m && typeof m === "object" && ROLES.has((m as { role?: string }).role ?? "") && typeof (m as { content?: unknown }).content === "string";

function parseRecord(line: string): SessionRecord | undefined {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!r || typeof r !== "object") return undefined;
  const rec = r as SessionRecord;
  switch (rec.type) {
    case "meta":
      return typeof rec.id === "string" ? rec : undefined;
    case "message":
      return isMessage(rec.message) ? rec : undefined;
    case "compaction":
    case "rewrite":
      return Array.isArray(rec.messages) && rec.messages.every(isMessage) ? rec : undefined;
    case "usage":
    case "resume":
    case "clear":
      return rec;
    default:
      return undefined;
  }
}

/** The longest prefix of `messages` in which every tool call has its result (what a provider accepts). */
export function completePrefix(messages: readonly ModelMessage[]): number {
  let good = 0;
  const pending = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "tool") {
      if (!pending.delete(m.toolCallId)) return good; // a result for no open call: stop before it
    } else {
      if (pending.size) return good;
      if (m.role === "assistant") for (const c of m.toolCalls ?? []) pending.add(c.id);
    }
    if (pending.size === 0) good = i + 1;
  }
  return good;
}

/** Read a transcript: the conversation it ends with. A broken tail is dropped and said (`damaged`). */
export function readSession(file: string): LoadedSession {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new AgentError("E_USAGE", `Cannot read session ${file}: ${(err as Error).message}`);
  }
  const lines = text.split("\n");
  const unterminated = lines.pop() !== "";
  let meta: SessionMeta | undefined;
  let messages: ModelMessage[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let brokenAt: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const r = parseRecord(lines[i]);
    if (!r) {
      brokenAt = i + 1;
      break;
    }
    if (r.type === "meta") meta ??= { id: r.id, started: r.started, cwd: r.cwd, model: r.model, version: r.version, ...(r.forkedFrom ? { forkedFrom: r.forkedFrom } : {}) };
    else if (r.type === "message") messages.push(r.message);
    else if (r.type === "compaction" || r.type === "rewrite") messages = [...r.messages];
    else if (r.type === "clear") messages = [];
    else if (r.type === "usage") {
      usage.inputTokens += Number(r.inputTokens) || 0;
      usage.outputTokens += Number(r.outputTokens) || 0;
    }
  }
  if (brokenAt === undefined && unterminated) brokenAt = lines.length + 1;
  const id = path.basename(file, ".jsonl");
  meta ??= { id, started: new Date(statSync(file).mtimeMs).toISOString(), cwd: "", version: "" };
  const keep = completePrefix(messages);
  const dropped = messages.length - keep;
  let damaged: string | undefined;
  if (brokenAt !== undefined || dropped > 0) {
    damaged =
      `Session ${id}: ${brokenAt !== undefined ? `the transcript is truncated or corrupted at line ${brokenAt}` : "the last turn is incomplete"}` +
      `; resuming from the last complete turn (${keep} message${keep === 1 ? "" : "s"}${dropped ? `, ${dropped} incomplete one${dropped === 1 ? "" : "s"} dropped` : ""}).`;
  }
  return { meta, messages: messages.slice(0, keep), usage, ...(damaged ? { damaged } : {}) };
}

/** Every session of the project, newest first (by last write). */
export function listSessions(projectRoot: string): SessionSummary[] {
  const dir = sessionsDir(projectRoot);
  if (!existsSync(dir)) return [];
  const out: SessionSummary[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".jsonl")) continue;
    const file = path.join(dir, name);
    try {
      out.push(summarize(file));
    } catch {
      /* unreadable: not listed */
    }
  }
  return out.sort((a, b) => b.updated.localeCompare(a.updated) || b.started.localeCompare(a.started));
}

function summarize(file: string): SessionSummary {
  const st = statSync(file);
  let meta: SessionMeta | undefined;
  let turns = 0;
  let lastPrompt = "";
  let model: string | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = parseRecord(line);
    if (!r) break;
    if (r.type === "meta") meta ??= r;
    // The newest model: a resume under another one (`-c --model …`) says which.
    if ((r.type === "meta" || r.type === "resume") && typeof r.model === "string" && r.model) model = r.model;
    else if (r.type === "message" && r.message.role === "assistant") turns++;
    else if (r.type === "message" && r.message.role === "user") lastPrompt = r.message.content;
  }
  const first = lastPrompt.trim().split("\n")[0] ?? "";
  return {
    id: meta?.id ?? path.basename(file, ".jsonl"),
    started: meta?.started ?? new Date(st.mtimeMs).toISOString(),
    updated: new Date(st.mtimeMs).toISOString(),
    ...(model ? { model } : {}),
    turns,
    lastPrompt: first.length > 80 ? `${first.slice(0, 79)}…` : first,
    file,
  };
}

/** The session `idOrPrefix` names (an exact id, or the start of exactly one); `last` the newest. */
export function findSession(projectRoot: string, idOrPrefix: string): SessionSummary {
  const all = listSessions(projectRoot);
  if (!all.length) throw new AgentError("E_USAGE", `No saved sessions in ${sessionsDir(projectRoot)} yet.`);
  if (idOrPrefix === "last") return all[0];
  const exact = all.find((s) => s.id === idOrPrefix);
  if (exact) return exact;
  const matches = all.filter((s) => s.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) throw new AgentError("E_USAGE", `"${idOrPrefix}" matches ${matches.length} sessions (${matches.slice(0, 4).map((s) => s.id).join(", ")}…); give more of the id.`);
  throw new AgentError("E_USAGE", `No session "${idOrPrefix}" in this project. agent sessions lists them.`);
}

/**
 * The pruning rule, applied when a new session file is created: transcripts last written more than
 * `maxAgeDays` ago are deleted, then all but the newest `maxCount - 1` (room for the new one). 0 turns
 * a limit off. `keep` (the current session) is never deleted. Returns the ids deleted.
 */
export function pruneSessions(projectRoot: string, limits: { maxAgeDays?: number; maxCount?: number }, keep?: string, now = Date.now()): string[] {
  const dir = sessionsDir(projectRoot);
  if (!existsSync(dir)) return [];
  const maxAge = limits.maxAgeDays ?? DEFAULT_SESSION_MAX_AGE_DAYS;
  const maxCount = limits.maxCount ?? DEFAULT_SESSION_MAX_COUNT;
  const files = readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl") && n !== `${keep}.jsonl`)
    .map((n) => {
      const file = path.join(dir, n);
      try {
        return { file, id: n.slice(0, -6), mtime: statSync(file).mtimeMs };
      } catch {
        return undefined;
      }
    })
    .filter((f): f is { file: string; id: string; mtime: number } => !!f)
    .sort((a, b) => b.mtime - a.mtime);
  const doomed = files.filter((f, i) => (maxAge > 0 && now - f.mtime > maxAge * 86_400_000) || (maxCount > 0 && i >= maxCount - 1));
  const deleted: string[] = [];
  // The copies kept of damaged transcripts, and the folder of its subagents' transcripts, go with their session.
  for (const f of doomed) {
    try {
      unlinkSync(`${f.file}.damaged`);
    } catch {
      /* none */
    }
    rmSync(f.file.slice(0, -".jsonl".length), { recursive: true, force: true });
  }
  for (const f of doomed) {
    try {
      unlinkSync(f.file);
      deleted.push(f.id);
    } catch {
      /* gone already */
    }
  }
  return deleted;
}

/**
 * Replace a damaged transcript by what was read from it (the old file is kept beside it as
 * `<id>.jsonl.damaged`), so records appended later are not hidden behind the broken line.
 */
export function repairSession(file: string, loaded: LoadedSession): void {
  // A copy, not copyFileSync: that would give the copy the old file's mode (0644 from an older version).
  writeFileAtomic(`${file}.damaged`, readFileSync(file), SECRET_FILE_MODE);
  const time = new Date().toISOString();
  const records: SessionRecord[] = [
    { type: "meta", ...loaded.meta },
    { type: "usage", time, ...loaded.usage },
    { type: "rewrite", time, reason: "repaired: the damaged tail was dropped", messages: loaded.messages },
  ];
  writeFileAtomic(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""), SECRET_FILE_MODE);
}

/** The sessions folder is this user's only (0700): mkdir's mode is cut by the umask, and an older folder may be 0755. */
function privateDir(dir: string): void {
  try {
    if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  } catch {
    /* not this user's folder: the files are 0600 all the same */
  }
}

/** Appends a conversation's records to its transcript; created on the first write. */
export class SessionWriter {
  private fd: number | undefined;
  readonly file: string;

  constructor(projectRoot: string, readonly id: string) {
    this.file = sessionFile(projectRoot, id);
  }

  get exists(): boolean {
    return this.fd !== undefined || existsSync(this.file);
  }

  private syncing = false;
  private dirty = false;

  /**
   * Append records as one synchronous write: once it returns, a `kill -9` cannot lose them (they are the
   * kernel's). The flush to the disk itself (fsync, against a power loss) follows in the background,
   * coalesced, so the loop never waits for the disk; `close` flushes what is left.
   */
  append(records: SessionRecord[], onCreate?: () => SessionRecord[]): void {
    if (!records.length) return;
    if (this.fd === undefined) {
      const dir = path.dirname(this.file);
      const isNew = !existsSync(this.file);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      privateDir(dir);
      ensureAgentIgnores(path.dirname(dir), "sessions/");
      // 0600 whatever the umask; a transcript left 0644 (by an older version) is narrowed first.
      this.fd = openPrivateAppend(this.file);
      if (isNew && onCreate) records = [...onCreate(), ...records];
    }
    writeSync(this.fd, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    this.flushSoon();
  }

  private flushSoon(): void {
    if (this.fd === undefined) return;
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    this.syncing = true;
    fsync(this.fd, () => {
      this.syncing = false;
      if (this.dirty) {
        this.dirty = false;
        this.flushSoon();
      }
    });
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
  }

}
