/**
 * What a sandboxed command may write, what stays read-only inside that, and what it may not read: worked
 * out from the settings and the file system at each wrap (a `.git/config` created since is protected at
 * the next command). Paths are real paths: a mount lands where a symlink leads, so that is what is named.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { isInside as inside } from "../kit/fs/path-inside.js";
import { isAgentConfigName } from "../kit/fs/user-config-dir.js";
import { credentialPaths } from "./credentials.js";
import type { SandboxSettings } from "./settings.js";

export interface HiddenPath {
  readonly path: string;
  readonly dir: boolean;
}

export interface SandboxMounts {
  /** Writable folders: the workspace roots, then `allowWrite`. */
  readonly writable: readonly string[];
  /** Protected files and folders inside the writable ones, bound read-only over them. */
  readonly readOnly: readonly string[];
  /** Inside those, what the gate let this call write, bound writable again. */
  readonly approved?: readonly string[];
  /** Credential locations and `denyRead`, replaced by an empty folder or /dev/null. */
  readonly hidden: readonly HiddenPath[];
}

/** In every writable folder: what decides what the agent (or git, or Claude Code) does next (kit/fs/protected-paths.ts). */
const PROTECTED_ENTRIES = [".agent", ".claude", ".git/config", ".git/hooks", ".mcp.json"];

function real(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}


/** The protected entries of one writable folder that exist now (`.git` as a file points git elsewhere: read-only too). */
function protectedIn(dir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found = PROTECTED_ENTRIES.map((e) => path.join(dir, e));
  found.push(...names.filter(isAgentConfigName).map((n) => path.join(dir, n)));
  if (names.includes(".git") && !isDir(path.join(dir, ".git"))) found.push(path.join(dir, ".git"));
  return found.map(real).filter((p): p is string => p !== undefined);
}

/** Where `p` leads: the real path of its deepest existing part, the rest as spelt; and that part. */
function leadsTo(p: string): { full: string; existing: string } {
  const tail: string[] = [];
  for (let cur = path.resolve(p); ; cur = path.dirname(cur)) {
    const r = real(cur);
    if (r) return { full: path.join(r, ...tail.reverse()), existing: r };
    if (path.dirname(cur) === cur) return { full: p, existing: cur };
    tail.push(path.basename(cur));
  }
}

/**
 * The approved writes that fall in a read-only entry, as what to make writable again: the file when it
 * exists, else its nearest existing folder (a new file in `.claude/` needs that folder writable).
 */
function approvedIn(approved: readonly string[], readOnly: readonly string[]): string[] {
  const out = new Set<string>();
  for (const a of approved) {
    const { full, existing } = leadsTo(a);
    if (readOnly.some((r) => inside(full, r) && inside(existing, r))) out.add(existing);
  }
  return [...out];
}

export function sandboxMounts(settings: SandboxSettings, roots: readonly string[], approved: readonly string[] = []): SandboxMounts {
  const writable = [...new Set([...roots, ...settings.allowWrite].map(real).filter((p): p is string => p !== undefined))];
  const readOnly = [...new Set(writable.flatMap(protectedIn))];
  const reopened = approvedIn(approved, readOnly);
  const hidden: HiddenPath[] = [];
  for (const p of new Set([...credentialPaths(), ...settings.denyRead].map(real))) {
    // A folder that holds a workspace root stays: hiding it would hide the workspace (a project in ~/.claude).
    if (p === undefined || writable.some((w) => inside(w, p))) continue;
    hidden.push({ path: p, dir: isDir(p) });
  }
  return { writable, readOnly, hidden, ...(reopened.length ? { approved: reopened } : {}) };
}
