/**
 * The trusted-folders file (`trusted-folders.json` in the user's config folder, never in the folder): the
 * user's decisions, keyed by each folder's real path, with the digests of the widening parts seen when
 * trusting. A trusted folder trusts its subfolders, but home and `/` only themselves (trusting them must
 * not trust every repository cloned under them). How a decision is read and written; what it admits is
 * the kernel's (`FolderTrust`, core/config/trust.ts).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { AgentError, errorMessage } from "../errors.js";
import { updateFileLocked } from "./locked-update.js";
import { realFolder } from "./real-path.js";

/** One decision, as the file keeps it. */
export interface TrustRecord {
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

/** The recorded decision for `folder` (a real path): its own, else a covering parent's; none without a config folder or a readable file. */
export function trustRecordFor(userConfigDir: string | undefined, folder: string): TrustRecord | undefined {
  return findRecord(readTrustFile(userConfigDir).folders, folder);
}

/**
 * A part's identity for the record: kind, name, file (relative to the folder, so the folder reached
 * through a symlink is the same) and value; a change to any is a new part.
 */
export function itemDigest(item: { readonly kind: string; readonly name: string; readonly file: string }, value: unknown, folder: string): string {
  const rel = path.relative(folder, item.file);
  const file = rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : item.file;
  const text = JSON.stringify([item.kind, item.name, file, value ?? null]);
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
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
  const r = trustRecordFor(userConfigDir, realFolder(folder));
  return r && { path: r.path, trustedAt: r.trustedAt };
}

/** The trusted folders, as recorded. */
export function trustedFolders(userConfigDir: string | undefined): { path: string; trustedAt: string; parts: number | undefined }[] {
  return readTrustFile(userConfigDir).folders.map((r) => ({ path: r.path, trustedAt: r.trustedAt, parts: r.items?.length }));
}
