/**
 * A call's walk through the source files, read from a stack captured at a deep point of the call (inside
 * a tool's run, a hook handler, the permission asker, the audit sink): the repository's files from the
 * outermost frame in, consecutive frames of one file counted once. A file met again after another file
 * means the step is split: the second file calls back into the first (A → B → A). Frames outside the
 * repository's sources (node internals, node_modules such as tapable, tests, plugins written by tests)
 * are left out.
 */
import path from "node:path";

/** The file of each `at …` line of a V8 stack, innermost first (`file://` URLs and `async` frames included). */
function stackFiles(stack: string): string[] {
  const files: string[] = [];
  for (const line of stack.split("\n")) {
    const at = /^\s*at (?:.*\()?((?:file:\/\/)?\/[^():]+?):\d+:\d+\)?\s*$/.exec(line);
    if (at) files.push(at[1].startsWith("file://") ? decodeURIComponent(new URL(at[1]).pathname) : at[1]);
  }
  return files;
}

/** The walk of `stack`: repository files (relative to `root`), outermost first, each run of one file once. */
export function callWalk(stack: string, root: string): string[] {
  const walk: string[] = [];
  for (const abs of stackFiles(stack).reverse()) {
    const rel = path.relative(root, abs).split(path.sep).join("/");
    if (rel.startsWith("..") || path.isAbsolute(rel) || /(^|\/)node_modules\//.test(rel) || rel.startsWith("tests/")) continue;
    if (walk.at(-1) !== rel) walk.push(rel);
  }
  return walk;
}

/** Each file the walk enters a second time, with the walk drawn: `a.ts → b.ts → a.ts (enters a.ts twice)`. */
export function reentries(walk: string[]): string[] {
  const twice = [...new Set(walk.filter((f, i) => walk.indexOf(f) !== i))];
  return twice.map((f) => `${walk.join(" → ")}  (enters ${f} ${walk.filter((g) => g === f).length} times)`);
}
