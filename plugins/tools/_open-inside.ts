/**
 * Race-safe opens for the file tools: the file opened is the file that was judged. A path is resolved
 * (workspace.resolve: every symlink followed, confined to the roots) and judged by the gate; between
 * that and the open, anything that runs at the same time (a `run_command` in the background) may swap
 * a component for a symlink. So every open refuses to follow a symlink in the last component
 * (O_NOFOLLOW), and then checks what it got: on Linux the descriptor's real path (`/proc/self/fd/<fd>`)
 * must be the judged real path; elsewhere the descriptor's device and inode must be those of a fresh
 * lstat of the judged path, whose real path must still be itself. A mismatch closes the descriptor
 * and refuses the call. Writes go through the folder's verified descriptor (`folderEntry`:
 * `/proc/self/fd/<dirfd>/<name>`, an openat without native code): a temp file created there and renamed
 * over the target (_atomic-replace.ts), and missing folders one verified step at a time, so nothing is
 * created outside even mid-race.
 *
 * Out of reach: a hard link to an outside file is that file (same inode, a real path inside); only
 * permissions on the outside file, or an OS sandbox, keep it out.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFile as readFileFd, readlinkSync, realpathSync, type Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AgentError, type Workspace } from "../../core/index.js";
import { judgedPaths } from "../../core/embed.js";

const { O_RDONLY, O_RDWR, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;
/** O_NONBLOCK: opening a FIFO a command made must not hang the call (it is then refused as not a file). */
const READ = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const FOLDER = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

let procFd: boolean | undefined;

/** Whether `/proc/self/fd` tells a descriptor's path (Linux with /proc mounted). */
function hasProcFd(): boolean {
  if (procFd !== undefined) return procFd;
  procFd = false;
  if (process.platform !== "linux") return procFd;
  try {
    const fd = openSync("/", FOLDER);
    try {
      procFd = readlinkSync(`/proc/self/fd/${fd}`) === "/";
    } finally {
      closeSync(fd);
    }
  } catch {
    procFd = false;
  }
  return procFd;
}

function refuse(shown: string, why: string): AgentError {
  return new AgentError("E_PATH_OUTSIDE_WORKSPACE", `${shown} was not opened: ${why}. A symlink or folder in its path changed while it was being opened; nothing outside was touched.`);
}

/** Throws (closing `fd`) unless the descriptor is the file at the real path `expected`. */
function verify(fd: number, expected: string, shown: string): void {
  let actual: string | undefined;
  try {
    if (hasProcFd()) actual = readlinkSync(`/proc/self/fd/${fd}`);
    else {
      const st = fstatSync(fd);
      const now = lstatSync(expected);
      // The path must still lead to itself (no component became a symlink) and hold this very file.
      if (!now.isSymbolicLink() && now.dev === st.dev && now.ino === st.ino && realpathSync.native(expected) === expected) actual = expected;
    }
  } catch {
    actual = undefined;
  }
  if (actual === expected) return;
  closeSync(fd);
  throw refuse(shown, actual ? `it opened ${actual}, not ${expected}` : `it is no longer ${expected}`);
}

/** openSync, with a symlink in the last component (ELOOP under O_NOFOLLOW) refused clearly. */
function openNoFollow(file: string, flags: number, shown: string, mode?: number): number {
  try {
    return openSync(file, flags, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw refuse(shown, "its last component became a symlink");
    throw err;
  }
}

/**
 * The real path a tool may open for `p`: resolved inside the workspace now, and among the paths the gate
 * judged for this call (the object `run` received), so a symlink swapped after the decision is refused.
 */
export function judgedTarget(workspace: Workspace, input: unknown, p: string, access?: "read" | "write"): string {
  const real = workspace.resolve(p, access ? { access } : undefined);
  const judged = judgedPaths(input);
  if (judged && !judged.includes(real)) {
    throw new AgentError(
      "E_PATH_OUTSIDE_WORKSPACE",
      `Path "${p}" now leads to ${real}, not where it led when the call was permitted (${judged.subjects.join(", ")}): a symlink changed in between; not opened.`,
    );
  }
  return real;
}

/** An existing file at the real path `real`, opened to read (or read and write), verified. Throws ENOENT as is. */
export function openFile(real: string, shown: string, write = false): number {
  const fd = openNoFollow(real, write ? O_RDWR | O_NOFOLLOW | O_NONBLOCK : READ, shown);
  verify(fd, real, shown);
  return fd;
}

/** A folder at the real path `real`, opened and verified. */
export function openFolder(real: string, shown: string): number {
  const fd = openNoFollow(real, FOLDER, shown);
  verify(fd, real, shown);
  return fd;
}

/** The name of `name` inside the folder descriptor `dirFd`: an openat target for open, mkdir, rename. */
export function folderEntry(dirFd: number, dirPath: string, name: string): string {
  return hasProcFd() ? `/proc/self/fd/${dirFd}/${name}` : path.join(dirPath, name);
}

/**
 * The folder `realDir` opened and verified, creating what is missing of it one folder at a time, each
 * inside the verified descriptor of its parent. `realDir` is a resolved path (what exists is real).
 */
export function openFolderCreating(realDir: string, shown: string): number {
  const missing: string[] = [];
  let top = realDir;
  for (;;) {
    try {
      lstatSync(top);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      const up = path.dirname(top);
      if (up === top) throw err;
      missing.unshift(path.basename(top));
      top = up;
    }
  }
  let fd = openFolder(top, shown);
  let at = top;
  try {
    for (const name of missing) {
      const entry = folderEntry(fd, at, name);
      try {
        mkdirSync(entry);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const next = openNoFollow(entry, FOLDER, shown);
      const nextPath = path.join(at, name);
      closeSync(fd);
      fd = next;
      at = nextPath;
      verify(fd, at, shown);
    }
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      /* verify closed it already */
    }
    throw err;
  }
  return fd;
}

/** The entries of the folder at the real path `real`, read through its verified descriptor. */
export async function readFolder(real: string, shown: string): Promise<Dirent[]> {
  const fd = openFolder(real, shown);
  try {
    return await readdir(folderEntry(fd, real, ""), { withFileTypes: true });
  } finally {
    closeSync(fd);
  }
}

/** Whether the open file is a regular one (not a folder, FIFO or device). */
export function isRegular(fd: number): boolean {
  return fstatSync(fd).isFile();
}

const readWhole = promisify(readFileFd) as (fd: number) => Promise<Buffer>;

/** The whole content of an open file, from where it is. */
export function readOpen(fd: number): Promise<Buffer> {
  return readWhole(fd);
}
