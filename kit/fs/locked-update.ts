/**
 * Read-change-write of a config file that several processes may edit at once (16 `agent mcp add` in
 * parallel, a permission answer while `agent mcp add` runs): under the file's lock, the change is
 * applied to what is on disk now, never to a copy read earlier, and written atomically with fsync.
 * Nothing a finished call reported is lost to another writer.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic, type SharedFileMode } from "./atomic-write.js";
import { AgentError, errorMessage } from "../errors.js";
import { withFileLock, type FileLockOptions } from "./file-lock.js";

/** The file's text now (undefined: there is none) → its new text (undefined: leave it as it is). */
export type FileChange = (current: string | undefined) => string | undefined;

export interface LockedUpdateOptions extends FileLockOptions {
  /** Run after a write, still holding the lock (a record of what was written). */
  readonly afterWrite?: (text: string) => void;
}

export interface LockedUpdate {
  /** Whether the file was written. */
  readonly written: boolean;
  /** The file's text after the update (undefined: there is none). */
  readonly text: string | undefined;
}

function readCurrent(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AgentError("E_CONFIG", `could not read ${file} (${errorMessage(err)}); nothing was changed.`, { cause: err });
  }
}

/**
 * Lock `file`, read it, apply `change`, write the result atomically (fsync'd) with `mode` (see
 * writeFileAtomic), release. The folder must exist. A failed write (a full disk) leaves the file as it
 * was and says so. `change` runs synchronously under the lock: it must not await.
 */
export function updateFileLocked(file: string, change: FileChange, mode?: number | SharedFileMode, options?: LockedUpdateOptions): LockedUpdate {
  return withFileLock(
    file,
    () => {
      const current = readCurrent(file);
      const next = change(current);
      if (next === undefined) return { written: false, text: current };
      try {
        writeFileAtomic(file, next, mode);
      } catch (err) {
        throw new AgentError("E_CONFIG", `could not write ${file} (${errorMessage(err)}); it was left as it was.`, { cause: err });
      }
      options?.afterWrite?.(next);
      return { written: true, text: next };
    },
    options,
  );
}
