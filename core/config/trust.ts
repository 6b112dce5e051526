/**
 * Folder trust: what a folder ships (code config, plugins, hooks, servers, rules that widen) applies only
 * once the user trusted that folder. The decision lives in the user's config folder, never in the folder,
 * keyed by the folder's real path; a trusted folder trusts its subfolders (but home and `/` only
 * themselves: trusting them must not trust every repository cloned under them). With the decision, the
 * digests of the folder's widening parts are kept, so a part added later is held back until trusted again.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { AgentError, errorMessage } from "../../kit/errors.js";
import { updateFileLocked } from "../../kit/fs/locked-update.js";

/** One part of a folder that would run code or widen what the agent may do. */
export interface TrustItem {
  /** What it is, e.g. `config code`, `plugin`, `allow rule`, `hooks`, `MCP server`. */
  readonly kind: string;
  /** Which one: a rule, a server's name, a hook event. */
  readonly name: string;
  /** The file that holds it. */
  readonly file: string;
  /** What it would do, shown when asking: a command line, a URL. */
  readonly detail?: string;
}

/** A part as a plugin names it to `ConfigEnv.trust.admit`: its value decides whether it changed since the decision. */
export interface TrustItemInput extends TrustItem {
  /** The part's whole value (a server entry, a hook list); any change to it is a new part. */
  readonly value: unknown;
}

export type TrustState = "trusted" | "untrusted" | "changed";

/** What `agent doctor` and the CLI say about a folder's trust. */
export interface TrustReport {
  /** The folder the decision is about (the project root, real path). */
  readonly folder: string;
  /** `changed`: trusted, but with parts added since; those are held back. */
  readonly state: TrustState;
  /** Why: `AGENT_TRUST`, the host's option, the user's decision for this folder or for a parent, or none. */
  readonly source: "env" | "option" | "folder" | "parent" | "none";
  /** The trusted folder that decided (this one or a parent). */
  readonly trustedFolder?: string;
  /** Every widening part seen, admitted or not. */
  readonly items: readonly TrustItem[];
  /** Parts that were not loaded. */
  readonly skipped: readonly TrustItem[];
}

/** A folder's trust as plugins see it (`ctx.trust`, `ConfigEnv.trust`). */
export interface FolderTrustView {
  /** The folder is trusted (parts added since the decision may still be held back: see `admit`). */
  readonly trusted: boolean;
  /** The project root the decision is about. */
  readonly folder: string;
}

/** In a plugin's `config` hook: ask before using a part of a folder's file that would run or widen. */
export interface ConfigTrust extends FolderTrustView {
  /** True when this part may be used; otherwise leave it out (the user is told what was not loaded). */
  admit(item: TrustItemInput): boolean;
}

interface TrustRecord {
  path: string;
  trustedAt: string;
  /** Digests of the widening parts the user saw when trusting; absent: every part is trusted. */
  items?: string[];
  /** Digest of `.agent/settings.local.json` as agent-host last wrote it on the user's answer: its parts are the user's. */
  localWrite?: string;
}

interface TrustFile {
  version: 1;
  folders: TrustRecord[];
}

export const TRUST_FILE = "trusted-folders.json";

export function realFolder(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Home and `/` are trusted only by a decision about them, never through a parent. */
function coversBelow(folder: string): boolean {
  return folder !== path.parse(folder).root && folder !== realFolder(homedir());
}

/** The decisions; with `strict` (before a write), a file that is there but unreadable is an error, not an empty list. */
function readTrustFile(userConfigDir: string | undefined, strict = false): TrustFile {
  if (!userConfigDir) return { version: 1, folders: [] };
  const file = path.join(userConfigDir, TRUST_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if (strict && (err as NodeJS.ErrnoException).code !== "ENOENT") throw unreadable(file, err);
  }
  return parseTrustFile(file, text, strict);
}

function parseTrustFile(file: string, text: string | undefined, strict: boolean): TrustFile {
  if (text === undefined) return { version: 1, folders: [] };
  try {
    const data = JSON.parse(text) as Partial<TrustFile>;
    if (!data || !Array.isArray(data.folders)) throw new Error("expected { folders: [...] }");
    return { version: 1, folders: data.folders.filter((f) => f && typeof f.path === "string") };
  } catch (err) {
    if (strict) throw unreadable(file, err);
    return { version: 1, folders: [] };
  }
}

const unreadable = (file: string, err: unknown) => new AgentError("E_CONFIG", `${file} could not be read (${errorMessage(err)}); fix or delete it, then trust the folders again`);

/**
 * Change the decisions under the file's lock, on what is on disk then (two folders trusted at once
 * both stay). `change` returns false to leave the file as it is. Returns the file.
 */
function updateTrustFile(userConfigDir: string, change: (data: TrustFile) => boolean): string {
  mkdirSync(userConfigDir, { recursive: true, mode: 0o700 });
  const file = path.join(userConfigDir, TRUST_FILE);
  updateFileLocked(file, (current) => {
    const data = parseTrustFile(file, current, true);
    return change(data) ? `${JSON.stringify(data, null, 2)}\n` : undefined;
  }, 0o600);
  return file;
}

/** The record that decides for `folder`: its own, else the nearest parent's that covers subfolders. */
function findRecord(records: readonly TrustRecord[], folder: string): TrustRecord | undefined {
  const own = records.find((r) => r.path === folder);
  if (own) return own;
  let best: TrustRecord | undefined;
  for (const r of records) {
    if (!coversBelow(r.path) || !folder.startsWith(r.path.endsWith(path.sep) ? r.path : r.path + path.sep)) continue;
    if (!best || r.path.length > best.path.length) best = r;
  }
  return best;
}

/**
 * A part's identity for the record: kind, name, file (relative to the folder, so the folder reached
 * through a symlink is the same) and value; a change to any is a new part.
 */
export function itemDigest(item: TrustItem, value: unknown, folder: string): string {
  const rel = path.relative(folder, item.file);
  const file = rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : item.file;
  const text = JSON.stringify([item.kind, item.name, file, value ?? null]);
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

export interface ResolveTrustOptions {
  /** The project root. */
  folder: string;
  userConfigDir: string | undefined;
  /** `createHost({ trust })`: true trusts the folder for this host, false never. */
  override?: boolean;
}

/** One run's trust for one folder: answers `admit` and remembers every part it was asked about. */
export class FolderTrust implements ConfigTrust {
  readonly folder: string;
  /** The folder as the host was given it (maybe through a symlink): the parts' files are under it. */
  private readonly given: string;
  readonly trusted: boolean;
  readonly source: TrustReport["source"];
  readonly trustedFolder: string | undefined;
  private readonly known: Set<string> | undefined;
  private readonly localWrite: string | undefined;
  /** Files whose parts are admitted without their digests (see `vouchIfWritten`). */
  private readonly vouched = new Set<string>();
  private readonly seen: { item: TrustItem; digest: string | undefined; value: unknown; admitted: boolean }[] = [];

  constructor(options: ResolveTrustOptions) {
    this.folder = realFolder(options.folder);
    this.given = path.resolve(options.folder);
    const env = process.env.AGENT_TRUST;
    const forced = options.override ?? (env === "1" || env === "true" ? true : env === "0" || env === "false" ? false : undefined);
    if (forced !== undefined) {
      this.trusted = forced;
      this.source = forced ? (options.override !== undefined ? "option" : "env") : "none";
    } else {
      const record = findRecord(readTrustFile(options.userConfigDir).folders, this.folder);
      this.trusted = !!record;
      this.source = !record ? "none" : record.path === this.folder ? "folder" : "parent";
      this.trustedFolder = record?.path;
      // Only the folder's own decision holds a fingerprint: a parent's trusts whatever lies below it.
      if (record?.path === this.folder && Array.isArray(record.items)) {
        this.known = new Set(record.items);
        this.localWrite = typeof record.localWrite === "string" ? record.localWrite : undefined;
      }
    }
    if (this.trusted && !this.trustedFolder) this.trustedFolder = this.folder;
  }

  admit = (input: TrustItemInput): boolean => {
    const item: TrustItem = { kind: String(input.kind), name: String(input.name), file: String(input.file), ...(input.detail !== undefined ? { detail: String(input.detail) } : {}) };
    // Hashed only when a fingerprint asks, or when the decision is recorded (`digests`).
    const digest = this.known && !this.vouched.has(item.file) ? itemDigest(item, input.value, this.given) : undefined;
    const admitted = this.trusted && (!this.known || this.known.has(digest!) || this.vouched.has(item.file));
    this.seen.push({ item: Object.freeze(item), digest, value: input.value, admitted });
    return admitted;
  };

  /**
   * A file agent-host itself writes for the user (`.agent/settings.local.json`): when it is exactly as
   * agent-host last wrote it, what it holds was the user's answer, admitted as the folder is; changed by
   * anything else (a `git pull` of a committed copy), its parts are checked one by one as any file's.
   */
  vouchIfWritten(file: string): void {
    if (this.localWrite && fileDigest(file) === this.localWrite) this.vouched.add(file);
  }

  /**
   * Whether a part a plugin names is one the user trusted as it is now: a file inside the folder, the
   * folder trusted, and (with a fingerprint) the part's digest in it. Asks nothing, records nothing.
   */
  covers(input: TrustItemInput): boolean {
    if (!this.trusted || typeof input?.file !== "string") return false;
    const rel = path.relative(this.given, path.resolve(this.given, input.file));
    if (!rel || rel.startsWith("..") || path.isAbsolute(rel) || !existsSync(path.resolve(this.given, input.file))) return false;
    if (!this.known) return true;
    const item: TrustItem = { kind: String(input.kind), name: String(input.name), file: String(input.file) };
    return this.known.has(itemDigest(item, input.value, this.given));
  }

  /** What the plugins are shown: the decision, no way to change it. */
  view(): ConfigTrust {
    return Object.freeze({ trusted: this.trusted, folder: this.folder, admit: this.admit });
  }

  report(): TrustReport {
    const skipped = this.seen.filter((s) => !s.admitted).map((s) => s.item);
    const state: TrustState = !this.trusted ? "untrusted" : skipped.length ? "changed" : "trusted";
    return Object.freeze({
      folder: this.folder,
      state,
      source: this.source,
      ...(this.trustedFolder ? { trustedFolder: this.trustedFolder } : {}),
      items: Object.freeze(this.seen.map((s) => s.item)),
      skipped: Object.freeze(skipped),
    });
  }

  /** Digests of every part seen, for the record written when the user trusts what was shown. */
  digests(): string[] {
    return [...new Set(this.seen.map((s) => (s.digest ??= itemDigest(s.item, s.value, this.given))))];
  }
}

/** Trust `folder` with exactly these parts (a later part is held back until trusted again). Returns the file written. */
export function trustFolder(userConfigDir: string, folder: string, digests: readonly string[] | undefined): string {
  const real = realFolder(folder);
  const record: TrustRecord = { path: real, trustedAt: new Date().toISOString(), ...(digests ? { items: [...new Set(digests)] } : {}) };
  return updateTrustFile(userConfigDir, (data) => {
    data.folders = [...data.folders.filter((r) => r.path !== real), record];
    return true;
  });
}

/** A file's content as a digest (a changed code config or local plugin file is a new part); undefined when unreadable. */
export function fileDigest(file: string): string | undefined {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return undefined;
  }
}

/**
 * agent-host wrote `file` (the folder's local settings) on the user's answer: a folder trusted with a
 * fingerprint keeps its content's digest, so the parts the user just added are not held back as "added
 * since". Nothing to do for a folder without a decision of its own. Never fails the write it follows.
 */
export function noteLocalWrite(userConfigDir: string, folder: string, file: string): void {
  try {
    const real = realFolder(folder);
    updateTrustFile(userConfigDir, (data) => {
      const record = data.folders.find((r) => r.path === real);
      if (!record || !Array.isArray(record.items)) return false;
      record.localWrite = fileDigest(file);
      return true;
    });
  } catch {
    /* the decision stays as it was: the new parts are asked about on the next start */
  }
}

/** Forget the decision about `folder`; true when there was one. */
export function untrustFolder(userConfigDir: string, folder: string): boolean {
  const real = realFolder(folder);
  let forgot = false;
  updateTrustFile(userConfigDir, (data) => {
    const kept = data.folders.filter((r) => r.path !== real && r.path !== path.resolve(folder));
    forgot = kept.length !== data.folders.length;
    data.folders = kept;
    return forgot;
  });
  return forgot;
}

/** The recorded decision that trusts `folder` (its own, or a parent's that covers it), if any. */
export function trustDecision(userConfigDir: string | undefined, folder: string): { path: string; trustedAt: string } | undefined {
  const r = findRecord(readTrustFile(userConfigDir).folders, realFolder(folder));
  return r && { path: r.path, trustedAt: r.trustedAt };
}

/** The trusted folders, as recorded. */
export function trustedFolders(userConfigDir: string | undefined): { path: string; trustedAt: string; parts: number | undefined }[] {
  return readTrustFile(userConfigDir).folders.map((r) => ({ path: r.path, trustedAt: r.trustedAt, parts: r.items?.length }));
}
