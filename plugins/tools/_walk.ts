/**
 * The file walk behind `list_files` and `grep`, as ripgrep does it: `.gitignore` and `.ignore` files
 * (the `ignore` package: git's rules, negations included) in every folder from the project root down,
 * plus `.git/info/exclude`; `.git` and `.agent` (the agent's own history, audit log and settings) are
 * never entered, `node_modules` only when asked for by name. Ignored folders are not read at all, which
 * is most of the speed. Symlinks are not followed, and every folder is read through a descriptor checked
 * to be that folder (_open-inside.ts), so no walk leaves the workspace, even when a folder is swapped for
 * a symlink mid-walk. A path given explicitly is walked even when it is ignored (as `rg foo dist/`).
 */
import { closeSync } from "node:fs";
import path from "node:path";
import type { Ignore } from "ignore";
import type { Workspace } from "../../core/index.js";
import { openFile, readFolder } from "./_open-inside.js";
import { readOpenSync } from "./_files.js";

/** Folders never walked: the agent's own state, and git's. */
const NEVER = new Set([".git", ".agent"]);
const CONCURRENCY = 8;

interface Layer {
  dir: string;
  ig: Ignore;
}

/** The `ignore` package, loaded on the first walk (registering the tools must not pay for it). */
let makeIgnore: (() => Ignore) | undefined;

function readRules(workspace: Workspace, dir: string, names: string[]): Ignore | undefined {
  let ig: Ignore | undefined;
  for (const name of names) {
    const text = readRuleFile(workspace, path.join(dir, name));
    if (text !== undefined) (ig ??= makeIgnore!()).add(text);
  }
  return ig;
}

/** A rule file's text; a symlinked one only where it leads inside the workspace. Undefined when absent or unreadable. */
function readRuleFile(workspace: Workspace, file: string): string | undefined {
  const read = (real: string) => {
    const fd = openFile(real, file);
    try {
      return readOpenSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  try {
    return read(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
  }
  try {
    return read(workspace.resolve(file, { access: "read" }));
  } catch {
    return undefined;
  }
}

/** Ignored by the layers (outermost first; a deeper file's rule, or a negation, wins). */
function ignoredBy(layers: Layer[], abs: string, dir: boolean): boolean {
  let ignored = false;
  for (const { dir: d, ig } of layers) {
    const rel = path.relative(d, abs).split(path.sep).join("/");
    if (!rel || rel.startsWith("..")) continue;
    const r = ig.test(dir ? `${rel}/` : rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

export interface WalkOptions {
  workspace: Workspace;
  /** The folder to walk (absolute, resolved inside the workspace). */
  base: string;
  signal?: AbortSignal;
  /** Walk `node_modules` too (the pattern names it). */
  withNodeModules?: boolean;
  /** Only files whose path relative to `base` passes (folders are always entered). */
  include?: (relFromBase: string) => boolean;
  /** Files and folders (absolute) left out entirely: those a deny or ask rule names (JudgedPaths.excludes). */
  exclude?: (abs: string) => boolean;
}

/** The rules of every folder from the workspace root that holds `base` down to `base`'s parent. */
function ancestorLayers(workspace: Workspace, base: string): Layer[] {
  const root = [...workspace.roots, ...workspace.readRoots].filter((r) => base === r || base.startsWith(r + path.sep)).sort((a, b) => b.length - a.length)[0] ?? base;
  const layers: Layer[] = [];
  const gitExclude = readRules(workspace, path.join(root, ".git", "info"), ["exclude"]);
  if (gitExclude) layers.push({ dir: root, ig: gitExclude });
  for (let dir = root; dir !== base; ) {
    const ig = readRules(workspace, dir, [".gitignore", ".ignore"]);
    if (ig) layers.push({ dir, ig });
    const next = path.relative(dir, base).split(path.sep)[0];
    dir = path.join(dir, next);
  }
  // A folder named explicitly is walked even if ignored: the files that ignore it are set aside there
  // (`ignore` would otherwise ignore every file under it for its parent's sake).
  return layers.filter((l) => !ignoredBy([l], base, true));
}

/** Absolute paths of the files under `base` that are not ignored, in no particular order. */
export async function walkFiles(o: WalkOptions): Promise<string[]> {
  makeIgnore ??= (await import("ignore")).default as unknown as () => Ignore;
  const out: string[] = [];
  const queue: { dir: string; layers: Layer[] }[] = [{ dir: o.base, layers: ancestorLayers(o.workspace, o.base) }];
  const visit = async (dir: string, parent: Layer[]) => {
    const own = readRules(o.workspace, dir, [".gitignore", ".ignore"]);
    const layers = own ? [...parent, { dir, ig: own }] : parent;
    let entries;
    try {
      entries = await readFolder(dir, dir);
    } catch {
      return; // vanished, unreadable, or no longer this folder
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      const isDir = e.isDirectory();
      if (isDir && (NEVER.has(e.name) || (e.name === "node_modules" && !o.withNodeModules))) continue;
      if (layers.length && ignoredBy(layers, abs, isDir)) continue;
      if (o.exclude?.(abs)) continue;
      if (isDir) queue.push({ dir: abs, layers });
      else if (e.isFile()) {
        if (!o.include || o.include(path.relative(o.base, abs).split(path.sep).join("/"))) out.push(abs);
      }
    }
  };
  let busy = 0;
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    for (;;) {
      if (o.signal?.aborted) return;
      const next = queue.shift();
      if (!next) {
        // Another worker may still add folders: wait for it unless everyone is idle.
        if (busy === 0) return;
        await new Promise((r) => setImmediate(r));
        continue;
      }
      busy++;
      try {
        await visit(next.dir, next.layers);
      } finally {
        busy--;
      }
    }
  });
  await Promise.all(workers);
  return out;
}

/** A folder of the agent's own (`.agent/…`) is never listed or searched; say so instead of returning nothing. */
export function agentOwnFolder(workspace: Workspace, abs: string): boolean {
  const rel = path.relative(workspace.root, abs).split(path.sep);
  return rel.includes(".agent");
}
