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

/**
 * A cheap fingerprint of the files' metadata (path, size, mode, inode, modification and change times),
 * no content read: when it is what it was when the content hash was last checked, the files are as they
 * were then (any write changes the change time, which no one but the kernel sets).
 */
export function statFingerprint(dir: string): string {
  const hash = createHash("sha256");
  for (const rel of listFiles(dir)) {
    const st = lstatSync(path.join(dir, rel), { bigint: true });
    hash.update(`${rel}\0${st.size}\0${st.mode}\0${st.ino}\0${st.mtimeNs}\0${st.ctimeNs}\n`);
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
