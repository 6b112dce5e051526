/** Shared helpers for the file tools. */
import { open } from "node:fs/promises";

/** A file whose first 8 KB hold a NUL byte is treated as binary (as git and grep do). */
export async function looksBinary(file: string): Promise<boolean> {
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).includes(0);
  } finally {
    await fh.close();
  }
}

/** Folders no one wants listed or searched unless they ask for them by name. */
export const DEFAULT_IGNORES = ["**/node_modules/**", "**/.git/**"];

/** A glob must stay relative and inside: no absolute patterns, no `..` segments. */
export function checkGlob(pattern: string): string | undefined {
  if (pattern.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(pattern)) return `pattern "${pattern}" is absolute; use a pattern relative to the folder`;
  if (pattern.split(/[\\/]/).includes("..")) return `pattern "${pattern}" contains "..", which could leave the workspace`;
  return undefined;
}
