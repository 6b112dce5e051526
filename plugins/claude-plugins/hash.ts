/**
 * A plugin's content hash: sha256 over its files in sorted path order, each as its path, whether it is
 * executable, its size and its bytes (a symlink as its target), so any change to any file, an added or
 * removed one, a renamed one or a script made executable changes it.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/** Folders never part of a plugin's content (a git clone's metadata). */
const SKIPPED = new Set([".git"]);

export function hashFolder(dir: string): string {
  const hash = createHash("sha256");
  for (const rel of listFiles(dir)) {
    const file = path.join(dir, rel);
    const st = lstatSync(file);
    const bytes = st.isSymbolicLink() ? Buffer.from(`link:${readlinkSync(file)}`) : readFileSync(file);
    hash.update(`${rel.split(path.sep).join("/")}\0${st.mode & 0o111 ? "x" : "-"}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

/** Every file under `dir` (symlinks as files, not followed), relative, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) walk(r);
      } else out.push(r);
    }
  };
  walk("");
  return out.sort();
}
