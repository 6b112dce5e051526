/** Shared helpers for the file tools. */
import { readFileSync, readSync } from "node:fs";
import path from "node:path";
import { changesAgentKey, type FileWrite, type Workspace } from "../../core/index.js";

/** A file whose first 8 KB hold a NUL byte is treated as binary (as git and grep do); read at offset 0 of the open file. */
export function looksBinary(fd: number): boolean {
  const buf = Buffer.alloc(8192);
  const bytesRead = readSync(fd, buf, 0, buf.length, 0);
  return buf.subarray(0, bytesRead).includes(0);
}

/** The whole text of an open file, synchronously (the walk reads small rule files this way). */
export function readOpenSync(fd: number): string {
  return readFileSync(fd, "utf8");
}

/** Folders no one wants listed or searched unless they ask for them by name. */
export const DEFAULT_IGNORES = ["**/node_modules/**", "**/.git/**"];

/** A glob must stay relative and inside: no absolute patterns, no `..` segments. */
export function checkGlob(pattern: string): string | undefined {
  if (pattern.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(pattern)) return `pattern "${pattern}" is absolute; use a pattern relative to the folder`;
  if (pattern.split(/[\\/]/).includes("..")) return `pattern "${pattern}" contains "..", which could leave the workspace`;
  return undefined;
}

/**
 * What a file tool tells the gate it writes (`ToolDefinition.writes`): the path, and for a `package.json`
 * whether the new text (`next`, from the current one; undefined when it cannot be made) changes the
 * `agent` key. A path the workspace refuses is left to the tool, which refuses it when it runs.
 */
export function fileWrite(workspace: Workspace, p: string, next: (current: string | undefined) => string | undefined): FileWrite[] {
  let file: string;
  try {
    file = workspace.resolve(p);
  } catch {
    return [{ path: p }];
  }
  if (path.basename(file) !== "package.json") return [{ path: p }];
  let current: string | undefined;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  const after = next(current);
  return [after === undefined ? { path: p } : { path: p, changesAgentKey: changesAgentKey(current, after) }];
}
