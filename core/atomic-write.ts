/**
 * Replace a file's content in one step: written beside it, then renamed over it, so a crash or a
 * reader never sees half a file (config edits, tokens, a repaired transcript). With `mode`, the file
 * has exactly that mode (a stale temp file from a crash keeps no other).
 */
import { chmodSync, renameSync, rmSync, writeFileSync } from "node:fs";

export function writeFileAtomic(file: string, text: string, mode?: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
