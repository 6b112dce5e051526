/**
 * Replacing a user's file so that it is always either the old content or the new, never cut: the new
 * bytes go to a temp file created exclusively in the same folder (through the folder's verified
 * descriptor, _open-inside.ts), are fsynced, and renamed over the target through that descriptor; then
 * the folder is fsynced so the rename survives a crash. The target's mode (and, where allowed, owner) is
 * kept. A kill -9 leaves at most a `.<name>.agent-<pid>-<random>.tmp` beside the untouched file, which
 * the next replace of that file removes once process <pid> is gone.
 * Refused: a target with other hard links (a rename would split them), a folder that cannot hold a temp
 * file. On a full disk the temp file is removed and the original is untouched.
 */
import { accessSync, closeSync, constants, fchmodSync, fchownSync, fsync as fsyncCb, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, write as writeCb, type Stats } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { pidMatcher, removeDeadWritersTemps } from "../../kit/index.js";
import { folderEntry, openFolderCreating } from "./_open-inside.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, W_OK } = constants;

/** The writes and syncs the replace makes; a test swaps `write` to fail as a full disk does. */
export const replaceIo = {
  write: promisify(writeCb) as (fd: number, buf: Buffer, offset: number, length: number, position: number) => Promise<{ bytesWritten: number }>,
  fsync: promisify(fsyncCb) as (fd: number) => Promise<void>,
};

/** Big parts are written a slice at a time, so no single write holds the call for long. */
const SLICE = 4 << 20;

export interface ReplaceOptions {
  /** The file must still be this one (device and inode) when it is replaced: the one an edit read. */
  expect?: Pick<Stats, "dev" | "ino">;
}

function fullDisk(code: string | undefined): boolean {
  return code === "ENOSPC" || code === "EDQUOT";
}

/** `base` cut to fit a temp name within any file system's 255-byte name limit. */
function tempStem(base: string): string {
  return Buffer.from(base).subarray(0, 180).toString("utf8").replace(/\uFFFD+$/, "");
}

/** A temp name beside `base`, with the writer's pid: a leftover of a killed writer is told from a live one's. */
function tempName(base: string): string {
  return `.${tempStem(base)}.agent-${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
}

/** The target as it is now (undefined when missing), refused when replacing it could not be exact. */
function currentTarget(entry: string, shown: string, expect?: ReplaceOptions["expect"]): Stats | undefined {
  let st: Stats;
  try {
    st = lstatSync(entry);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    if (expect) throw new Error(`${shown} was removed while it was being edited; nothing was written`);
    return undefined;
  }
  if (st.isDirectory()) throw new Error(`${shown} is a directory`);
  if (!st.isFile()) throw new Error(`${shown} is not a regular file (a symlink, FIFO, socket or device); not changed`);
  if (st.nlink > 1) {
    throw new Error(
      `${shown} has ${st.nlink} hard links; replacing it atomically would leave the other ${st.nlink - 1} with the old content, ` +
        `and writing it in place could cut it short. Not changed; break the link (cp it to a new file) or edit another name.`,
    );
  }
  try {
    // A rename would replace a file its owner made read-only; an in-place write would have been refused.
    accessSync(entry, W_OK);
  } catch (err) {
    throw new Error(`${shown} is not writable (${(err as NodeJS.ErrnoException).code}); not changed`);
  }
  if (expect && (st.dev !== expect.dev || st.ino !== expect.ino)) throw new Error(`${shown} was replaced by another file while it was being edited; nothing was written`);
  return st;
}

/** Creates the temp file, refusing clearly where the folder cannot hold one. */
function createTemp(dirFd: number, dir: string, base: string, shown: string): { fd: number; entry: string } {
  const entry = folderEntry(dirFd, dir, tempName(base));
  try {
    return { fd: openSync(entry, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666), entry };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (fullDisk(code)) throw new Error(`${shown} was not changed: the disk is full (${code}); the original is untouched`);
    throw new Error(
      `${shown} was not changed: its folder cannot hold the temp file an atomic write needs (${code ?? (err as Error).message}); ` +
        `make ${dir} writable to let the tool write there`,
    );
  }
}

async function writeAll(fd: number, parts: Buffer[]): Promise<void> {
  let at = 0;
  for (const part of parts) {
    for (let done = 0; done < part.length; ) {
      const n = Math.min(SLICE, part.length - done);
      const { bytesWritten } = await replaceIo.write(fd, part, done, n, at);
      done += bytesWritten;
      at += bytesWritten;
    }
  }
}

/**
 * Makes the file at the real path `real` hold exactly `parts` (concatenated), atomically. Missing folders
 * are created. Returns whether the file existed.
 */
export async function replaceFile(real: string, shown: string, parts: Buffer[], options: ReplaceOptions = {}): Promise<{ existed: boolean }> {
  const dir = path.dirname(real);
  const base = path.basename(real);
  const dirFd = openFolderCreating(dir, shown);
  try {
    const target = folderEntry(dirFd, dir, base);
    const before = currentTarget(target, shown, options.expect);
    const temp = createTemp(dirFd, dir, base, shown);
    let renamed = false;
    try {
      try {
        if (before) {
          fchmodSync(temp.fd, before.mode & 0o7777);
          try {
            fchownSync(temp.fd, before.uid, before.gid);
          } catch {
            /* only root may give a file away; the mode is kept either way */
          }
        }
        await writeAll(temp.fd, parts);
        await replaceIo.fsync(temp.fd);
      } finally {
        closeSync(temp.fd);
      }
      // Checked again just before the rename: a link made or a file swapped meanwhile is not overwritten.
      currentTarget(target, shown, before ? { dev: before.dev, ino: before.ino } : undefined);
      renameSync(temp.entry, target);
      renamed = true;
      fsyncSync(dirFd);
      removeDeadWritersTemps(folderEntry(dirFd, dir, ""), pidMatcher(`.${tempStem(base)}.agent-`, "-[0-9a-f]{8}\\.tmp"), real);
    } catch (err) {
      if (!renamed) removeQuietly(temp.entry);
      const code = (err as NodeJS.ErrnoException).code;
      if (fullDisk(code)) throw new Error(`${shown} was not changed: the disk is full (${code}); the original is untouched and the partial copy was removed`);
      if (renamed) throw new Error(`${shown} was written, but syncing its folder failed (${code ?? (err as Error).message}); a crash now could undo the write`);
      if (code) throw new Error(`${shown} was not changed: ${(err as Error).message}; the original is untouched`);
      throw err;
    }
    return { existed: before !== undefined };
  } finally {
    closeSync(dirFd);
  }
}

function removeQuietly(entry: string): void {
  try {
    unlinkSync(entry);
  } catch {
    /* already gone */
  }
}
