/**
 * The workspace: the folders tools may touch. Paths are resolved lexically, then through the real
 * path of the deepest existing ancestor (kit/fs/real-path.ts), so `..`, absolute paths and symlinks
 * cannot lead outside.
 */
import path from "node:path";
import { AgentError } from "../../kit/errors.js";
import { isInside } from "../../kit/fs/path-inside.js";
import { pathLeads, realFolder, realPath } from "../../kit/fs/real-path.js";
import type { Workspace } from "../types.js";

/** Where a path leads through its symlinks, as `resolve` judges it (the gate's judged paths use it too). */
export { realPath };

/** A workspace, and the one handle that may add read-only roots to it (kept by the host). */
export interface WorkspaceHandle {
  workspace: Workspace;
  addReadRoot(dir: string): string;
}

export function createWorkspace(root: string, extraRoots: readonly string[] = []): Workspace {
  return createWorkspaceHandle(root, extraRoots).workspace;
}

export function createWorkspaceHandle(root: string, extraRoots: readonly string[] = []): WorkspaceHandle {
  const realRoot = realFolder(path.resolve(root));
  const roots = [realRoot, ...extraRoots.map((r) => realFolder(path.resolve(r)))];
  let readRoots: readonly string[] = Object.freeze([]);
  const workspace: Workspace = Object.freeze({
    root: realRoot,
    roots: Object.freeze(roots),
    get readRoots() {
      return readRoots;
    },
    resolve(p: string, options?: { access?: "read" | "write" }): string {
      const { abs, real } = pathLeads(p, realRoot);
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
      const real = realFolder(path.resolve(realRoot, dir));
      if (!readRoots.includes(real) && !roots.some((r) => isInside(real, r))) readRoots = Object.freeze([...readRoots, real]);
      return real;
    },
  };
}
