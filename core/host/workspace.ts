/**
 * The workspace: the folders tools may touch. Paths are resolved lexically, then through the real
 * path of the deepest existing ancestor, so `..`, absolute paths and symlinks cannot lead outside.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../kit/errors.js";
import { isInside } from "../../kit/fs/path-inside.js";
import type { Workspace } from "../types.js";

function realpathOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
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


/** A workspace, and the one handle that may add read-only roots to it (kept by the host). */
export interface WorkspaceHandle {
  workspace: Workspace;
  addReadRoot(dir: string): string;
}

export function createWorkspace(root: string, extraRoots: readonly string[] = []): Workspace {
  return createWorkspaceHandle(root, extraRoots).workspace;
}

export function createWorkspaceHandle(root: string, extraRoots: readonly string[] = []): WorkspaceHandle {
  const realRoot = realpathOrSelf(path.resolve(root));
  const roots = [realRoot, ...extraRoots.map((r) => realpathOrSelf(path.resolve(r)))];
  let readRoots: readonly string[] = Object.freeze([]);
  const workspace: Workspace = Object.freeze({
    root: realRoot,
    roots: Object.freeze(roots),
    get readRoots() {
      return readRoots;
    },
    resolve(p: string, options?: { access?: "read" | "write" }): string {
      if (typeof p !== "string" || p.length === 0) throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", "Path is empty.");
      if (p.includes("\0")) throw new AgentError("E_PATH_OUTSIDE_WORKSPACE", "Path contains a NUL byte.");
      // `~` is not expanded: a model asking for `~/x` gets a folder named `~` in the workspace, not $HOME.
      const abs = path.resolve(realRoot, p);
      const real = realpathDeep(abs);
      const allowed = options?.access === "read" ? [...roots, ...readRoots] : roots;
      if (!allowed.some((r) => isInside(real, r))) {
        const lexicallyInside = [path.resolve(root), ...roots].some((r) => isInside(abs, r));
        const why = lexicallyInside ? "it resolves through a symlink to" : "it is";
        throw new AgentError(
          "E_PATH_OUTSIDE_WORKSPACE",
          `Path "${p}" is outside the workspace: ${why} ${real}, and tools may only touch ${roots.join(", ")}. ` +
            `Add the folder to workspace.roots in the config to allow it.`,
        );
      }
      return real;
    },
    relative(abs: string): string {
      const rel = path.relative(realRoot, abs);
      return rel === "" ? "." : rel;
    },
  });
  return {
    workspace,
    addReadRoot(dir: string): string {
      const real = realpathOrSelf(path.resolve(realRoot, dir));
      if (!readRoots.includes(real) && !roots.some((r) => isInside(real, r))) readRoots = Object.freeze([...readRoots, real]);
      return real;
    },
  };
}
