/**
 * Where a path really leads, for paths that may not exist yet. Three readings, each for its caller:
 * `realFolder` (a folder's real path, else the path as given: the key of a trust decision, a workspace
 * root), `realPath` (the workspace's check, through `pathLeads`: a missing tail joined to the real path of
 * what exists, a dangling symlink followed to its target) and `realTarget` (the protected paths' check: each existing
 * component through its symlinks, `..` taken where the previous one really is, the rest as spelt).
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../errors.js";

/** The real path of `dir`, or `dir` resolved when it cannot be had (it does not exist). */
export function realFolder(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/**
 * Real path of `p`, following symlinks, for paths that may not exist yet: the missing tail is joined
 * to the real path of its nearest existing ancestor. A dangling symlink is followed to its target,
 * so writing through `link -> /outside/new.txt` is seen as writing outside.
 */
function realpathDeep(p: string, depth = 0): string {
  try {
    return realpathSync.native(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", `Too many levels of symbolic links in ${p}`);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
  }
  if (depth > 40) throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", `Too many levels of symbolic links in ${p}`);
  let isLink = false;
  try {
    isLink = lstatSync(p).isSymbolicLink();
  } catch {
    /* does not exist */
  }
  // The target is relative to the folder the link really is in (its `..` taken from there, as the OS does).
  if (isLink) return realpathDeep(path.resolve(realpathDeep(path.dirname(p), depth + 1), readlinkSync(p)), depth + 1);
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(realpathDeep(parent, depth + 1), path.basename(p));
}

/**
 * Where the absolute path `abs` leads: every existing component through its symlinks, a missing tail
 * joined to the real path of what exists (see realpathDeep). Throws an AgentError on a symlink loop.
 */
export function realPath(abs: string): string {
  return realpathDeep(abs);
}

/**
 * Where a path a tool was given leads from `base`: as written (`abs`: `..` and absolute paths taken
 * lexically) and really (`real`, through its symlinks: see realPath). An empty path or one holding a
 * NUL byte leads nowhere: an AgentError, as a path outside the workspace is.
 */
export function pathLeads(p: unknown, base: string): { abs: string; real: string } {
  if (typeof p !== "string" || p.length === 0) throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", "Path is empty.");
  if (p.includes("\0")) throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", "Path contains a NUL byte.");
  // `~` is not expanded: a model asking for `~/x` gets a folder named `~` in the workspace, not $HOME.
  const abs = path.resolve(base, p);
  return { abs, real: realPath(abs) };
}

/**
 * Where writing `p` (absolute) leads: each existing component through its symlinks, `..` taken from
 * where the previous one really is; the first missing component and the rest as spelt. Throws on a loop.
 */
export function realTarget(p: string): string {
  return follow(path.parse(p).root, p, 0);
}

function follow(from: string, p: string, depth: number): string {
  const segs = p.split(/[\\/]+/).filter(Boolean);
  let cur = path.isAbsolute(p) ? path.parse(p).root : from;
  for (let i = 0; i < segs.length; i++) {
    if (segs[i] === ".") continue;
    if (segs[i] === "..") {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, segs[i]);
    const link = linkOf(next);
    if (link === undefined) return path.join(next, ...segs.slice(i + 1));
    if (link === null) cur = next;
    else if (depth >= 40) throw new Error(`too many levels of symbolic links at ${next}`);
    else cur = follow(cur, link, depth + 1);
  }
  return cur;
}

/** A symlink's target; null for anything else that exists; undefined when nothing is there. */
export function linkOf(p: string): string | null | undefined {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : null;
  } catch {
    return undefined;
  }
}

/** `realTarget`, or `p` itself when its symlinks loop. */
export function realTargetOrSelf(p: string): string {
  try {
    return realTarget(p);
  } catch {
    return p;
  }
}
