/**
 * The script files a command line runs (`. ./env.sh`, `bash build.sh`, `./deploy.sh`), read for the
 * gate so their commands meet deny rules: small text files only, read when the call is judged.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { Workspace } from "../../core/index.js";
import type { ScriptFiles } from "../../kit/index.js";

/** Larger files are not read (their commands stay unseen: a sourced one makes the line unjudgeable). */
const MAX_SCRIPT_BYTES = 256 * 1024;

export function scriptFiles(workspace: Workspace, cwd: string | undefined): ScriptFiles | undefined {
  let dir: string;
  try {
    dir = workspace.resolve(cwd ?? ".");
  } catch {
    return undefined;
  }
  return { cwd: dir, read: readScript };
}

function readScript(file: string): string | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: a named pipe in the script's place must not hang the gate.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SCRIPT_BYTES) return undefined;
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    return text.includes("\u0000") ? undefined : text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
