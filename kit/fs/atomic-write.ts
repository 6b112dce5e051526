/**
 * Replace a file's content in one step: written beside it, then renamed over it, so a crash or a
 * reader never sees half a file (config edits, tokens, a repaired transcript).
 *
 * The mode, whatever the umask:
 * - `mode` a number: the file has exactly that mode, a new file and an existing one alike (an existing
 *   0644 file rewritten with 0o600 becomes 0600). What may hold a secret (local settings with a
 *   server's `-e` values, tokens, user config, transcripts) is written with `SECRET_FILE_MODE`. The
 *   content is never in a file with a wider mode, not even for a moment: the temp file is created
 *   (exclusively: a stale one from a crash, or a link planted in its place, is removed first) with at
 *   most that mode and set to it exactly before anything is written.
 * - `{ shared: m }` (a file the project shares, e.g. `.mcp.json`) or no mode: an existing file keeps
 *   its mode; a new one gets `m` (default 0o666) less the umask.
 *
 * Durable: the temp file is fsync'd before the rename and the folder after it, so a power cut after
 * the call returns finds the new content, not an empty file or the old one.
 */
import { closeSync, fchmodSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { pidMatcher, removeDeadWritersTemps } from "./stale-temps.js";

/** Owner read and write only: every file agent-host writes that can hold a secret. */
export const SECRET_FILE_MODE = 0o600;

/** A file others may read: kept as it is when it exists, created with `shared` less the umask. */
export interface SharedFileMode {
  readonly shared: number;
}

export function writeFileAtomic(file: string, text: string | Uint8Array, mode?: number | SharedFileMode): void {
  let exact = typeof mode === "number" ? mode & 0o7777 : undefined;
  if (exact === undefined) {
    try {
      exact = statSync(file).mode & 0o7777;
    } catch {
      /* a new file: the umask applies */
    }
  }
  const create = exact ?? (typeof mode === "object" && mode ? mode.shared & 0o7777 : 0o666);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    rmSync(tmp, { force: true });
    const fd = openSync(tmp, "wx", create);
    try {
      if (exact !== undefined) fchmodSync(fd, exact);
      const data = typeof text === "string" ? Buffer.from(text) : text;
      let off = 0;
      while (off < data.byteLength) off += writeSync(fd, data, off, data.byteLength - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncFolder(path.dirname(file));
  // `<name>.<pid>.tmp` of a writer killed before its rename: this target's only, and only if that writer is gone.
  removeDeadWritersTemps(path.dirname(file), pidMatcher(`${path.basename(file)}.`, "\\.tmp"), path.resolve(file));
}

/** Make a rename in `dir` durable; where folders cannot be fsync'd (some file systems, Windows), the rename stands as it is. */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    /* EISDIR/EINVAL/EPERM: not supported here */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Open `file` to append (created when missing) with mode 0600 whatever the umask, for the append-only
 * logs that may hold secrets (the audit log, session transcripts): a regular file found with a wider
 * mode (0644 from an older version, or made by hand) is narrowed to it before anything is written. A
 * device or pipe (`audit.path: /dev/stderr`) is left as it is, and so is a file this user may append
 * to but does not own. Returns the descriptor.
 */
export function openPrivateAppend(file: string, mode: number = SECRET_FILE_MODE): number {
  const fd = openSync(file, "a", mode);
  try {
    const st = fstatSync(fd);
    if (st.isFile() && (st.mode & 0o7777) !== mode) fchmodSync(fd, mode);
  } catch {
    /* not this user's file to change: appended to as it is */
  }
  return fd;
}
