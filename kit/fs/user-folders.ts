/**
 * The user's folders for what agent-host keeps outside any project: a cache (what may be lost and rebuilt)
 * and a state folder (logs: kept, this machine's own), after the XDG base directories. What a project keeps in
 * its `.agent/` goes there instead when it has no `.agent/` (a listing leaves none behind), in a folder of
 * its own (`projectFolderName`).
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import { realFolder } from "./real-path.js";

/** `$XDG_CACHE_HOME/agent-host`, else `~/.cache/agent-host` (cli/listing-cache/key.ts finds the same: a test keeps them equal). */
export function userCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "agent-host");
}

/** `$XDG_STATE_HOME/agent-host`, else `~/.local/state/agent-host`. */
export function userStateDir(): string {
  return path.join(process.env.XDG_STATE_HOME || path.join(homedir(), ".local", "state"), "agent-host");
}

/**
 * A project's folder name under those: its base name (so a person can tell which it is) and a hash of its
 * real path, so two projects never share one, and a project reached through a symlink is still itself.
 */
export function projectFolderName(root: string): string {
  const real = realFolder(root);
  const name = path.basename(real).replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 40) || "root";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 16)}`;
}
