/**
 * Paths as permission rules see them: the subject's spelling, a path tool's subjects (as spelt and where it
 * leads), and a pattern's gitignore semantics.
 */
import path from "node:path";
import { realPath } from "../fs/real-path.js";
import { picomatch } from "../text/glob.js";

/**
 * A path pattern, as in .gitignore: `*.txt` (no slash) matches that name in any folder; `/x` or
 * `src/*.ts` (a slash) is anchored at the project root; `**` crosses folders; a folder matches
 * everything under it (`build/`, `build`). Subjects are paths relative to the project root.
 */
export function pathMatcher(pattern: string): (relativePath: string) => boolean {
  let p = pattern.trim();
  const opts = { dot: true, nonegate: true, noextglob: true, nobrace: true } as const;
  // `//abs/path` (Claude Code's spelling): an absolute path, for what lies outside the project root
  // (subjects there are absolute; inside the root they are relative, so it never matches those).
  if (p.startsWith("//")) {
    const abs = `/${p.replace(/^\/+/, "").replace(/\/+$/, "")}`;
    const file = picomatch(abs, opts);
    const under = picomatch(abs === "/" ? "/**" : `${abs}/**`, opts);
    return (s) => s.startsWith("/") && (file(s) || under(s));
  }
  const anchored = p.startsWith("/") || p.replace(/\/+$/, "").includes("/");
  p = p.replace(/^\/+/, "").replace(/\/+$/, "");
  if (!p) return () => true;
  const file = picomatch(anchored ? p : `**/${p}`, opts);
  const under = picomatch(anchored ? `${p}/**` : `**/${p}/**`, opts);
  return (rel) => file(rel) || under(rel);
}

/** A path as rules see it: relative to the project root with `/` separators (`.` for the root); outside it, absolute. */
export function projectPath(root: string, p: string): string {
  const abs = path.resolve(root, p);
  const rel = path.relative(root, abs);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return abs;
  return rel.split(path.sep).join("/");
}

/**
 * A path tool's subjects: each path as spelt (normalised) and, when it differs, where it leads (every
 * symlink followed). A deny or ask rule needs one to match, an allow rule must cover all: a symlink can
 * make a call less allowed, never more. A path that cannot be resolved (a loop) keeps its spelling; the
 * tool refuses it when it runs.
 */
export function pathSubjects(root: string, paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const spelt = projectPath(root, p);
    if (!out.includes(spelt)) out.push(spelt);
    let real: string | undefined;
    try {
      real = projectPath(root, realPath(path.resolve(root, p)));
    } catch {
      real = undefined;
    }
    if (real !== undefined && !out.includes(real)) out.push(real);
  }
  return out;
}
