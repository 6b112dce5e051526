/**
 * Instruction files for the system prompt, in this order (later ones are more specific):
 *   1. the user's own, `AGENTS.md` then `CLAUDE.md` in the user config folder (`~/.config/agent/`), then
 *      Claude Code's user memory `~/.claude/CLAUDE.md` (or `$CLAUDE_CONFIG_DIR/CLAUDE.md`);
 *   2. `AGENTS.md`, `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md` at the project root (Claude Code
 *      reads a project's memory from either CLAUDE.md, and the personal CLAUDE.local.md after it);
 *   3. the same in each folder from the root down to the working directory.
 * A file that is the same file as one already read (a symlink, `CLAUDE.md` → `AGENTS.md`) is read once.
 * Claude Code's `@path` imports (outside code) are followed, at most 5 deep: relative to the importing
 * file, `~/` for the home folder; a project file's imports must stay inside the workspace (the same
 * containment as the tools, symlinks included), the user file's inside the user config folder. Each
 * file is cut at 64 KiB and all of them together at 128 KiB, saying so.
 * Pure file reading (`agent-host/kit`): the built-in `instructions` plugin puts the text in the system
 * prompt (the `systemPrompt` hook), and `agent doctor` lists the files.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { isInside } from "./fs/path-inside.js";
import { claudeUserDir } from "./fs/user-config-dir.js";

/** What the loader needs of a workspace: `resolve` throws for a path outside it (a host's `workspace`). */
export interface InstructionWorkspace {
  resolve(p: string, options?: { access?: "read" | "write" }): string;
}

export const INSTRUCTION_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** In each project folder: agent-host's and Claude Code's names, Claude Code's personal file last. */
const PROJECT_NAMES = [...INSTRUCTION_NAMES, path.join(".claude", "CLAUDE.md"), "CLAUDE.local.md"];
export const MAX_INSTRUCTION_FILE_BYTES = 64 * 1024;
export const MAX_INSTRUCTIONS_BYTES = 128 * 1024;
const MAX_IMPORT_DEPTH = 5;

export interface InstructionFile {
  path: string;
  /** As shown: relative to the project root, or `~/…`. */
  label: string;
  scope: "user" | "project";
  bytes: number;
  importedBy?: string;
  truncated?: boolean;
}

export interface Instructions {
  files: InstructionFile[];
  /** What was not read: an import outside the workspace, a missing file, the size budget. */
  skipped: string[];
  text: string;
}

export interface InstructionSources {
  root: string;
  cwd: string;
  userConfigDir?: string;
  workspace: InstructionWorkspace;
}


function real(p: string): string | undefined {
  try {
    return statSync(p).isFile() ? realpathSync(p) : undefined;
  } catch {
    return undefined;
  }
}

/** The folders from the root down to `cwd` (the root alone when cwd is outside it). */
function folders(root: string, cwd: string): string[] {
  const out = [root];
  if (!isInside(cwd, root)) return out;
  let dir = root;
  for (const part of path.relative(root, cwd).split(path.sep).filter(Boolean)) out.push((dir = path.join(dir, part)));
  return out;
}

/** `@path` tokens outside fenced and inline code. */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, "").matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[\w.\-/]*[\w\-/])/g)) {
      const p = m[1];
      if ((p.includes("/") || p.includes(".")) && !out.includes(p)) out.push(p);
    }
  }
  return out;
}

export function loadInstructions(src: InstructionSources): Instructions {
  const files: InstructionFile[] = [];
  const skipped: string[] = [];
  const blocks: string[] = [];
  const seen = new Set<string>();
  let total = 0;
  const home = homedir();
  const label = (p: string) => (isInside(p, src.root) ? path.relative(src.root, p) || path.basename(p) : isInside(p, home) ? `~/${path.relative(home, p)}` : p);

  // A user file's imports stay inside the folder it lives in (the user config folder, or ~/.claude).
  const read = (file: string, scope: "user" | "project", depth: number, importedBy?: InstructionFile, userBase = src.userConfigDir): void => {
    const r = real(file);
    if (!r) {
      if (importedBy) skipped.push(`${label(file)} (imported by ${importedBy.label}): no such file`);
      return;
    }
    if (seen.has(r)) return;
    seen.add(r);
    let text: string;
    try {
      text = readFileSync(r, "utf8").replace(/^\uFEFF/, "").trim();
    } catch (err) {
      skipped.push(`${label(file)}: ${(err as Error).message}`);
      return;
    }
    if (!text) return;
    const bytes = Buffer.byteLength(text);
    if (total + Math.min(bytes, MAX_INSTRUCTION_FILE_BYTES) > MAX_INSTRUCTIONS_BYTES) {
      skipped.push(`${label(file)}: left out, the instructions already take ${total} of ${MAX_INSTRUCTIONS_BYTES} bytes`);
      return;
    }
    let body = text;
    let truncated = false;
    if (bytes > MAX_INSTRUCTION_FILE_BYTES) {
      body = `${Buffer.from(text).subarray(0, MAX_INSTRUCTION_FILE_BYTES).toString("utf8")}\n[${label(file)} truncated: ${bytes - MAX_INSTRUCTION_FILE_BYTES} of ${bytes} bytes cut]`;
      truncated = true;
    }
    total += Math.min(bytes, MAX_INSTRUCTION_FILE_BYTES);
    const entry: InstructionFile = { path: r, label: label(file), scope, bytes, ...(importedBy ? { importedBy: importedBy.label } : {}), ...(truncated ? { truncated } : {}) };
    files.push(entry);
    const heading = importedBy ? `Imported by ${importedBy.label}` : scope === "user" ? "User instructions" : "Project instructions";
    blocks.push(`# ${heading} (${entry.label})\n\n${body}`);
    if (depth >= MAX_IMPORT_DEPTH) return;
    for (const imp of importsOf(body)) {
      const target = imp.startsWith("~/") ? path.join(home, imp.slice(2)) : path.resolve(path.dirname(r), imp);
      const allowed = scope === "user" ? allowedForUser(target, userBase) : allowedInWorkspace(target, src.workspace);
      if (allowed !== true) {
        skipped.push(`@${imp} (imported by ${entry.label}): ${allowed}`);
        continue;
      }
      read(target, scope, depth + 1, entry, userBase);
    }
  };

  if (src.userConfigDir) {
    for (const n of INSTRUCTION_NAMES) read(path.join(src.userConfigDir, n), "user", 0);
    const claudeDir = claudeUserDir();
    read(path.join(claudeDir, "CLAUDE.md"), "user", 0, undefined, claudeDir);
  }
  for (const dir of folders(src.root, src.cwd)) for (const n of PROJECT_NAMES) read(path.join(dir, n), "project", 0);
  return { files, skipped, text: blocks.join("\n\n") };
}

function allowedInWorkspace(target: string, workspace: InstructionWorkspace): true | string {
  try {
    workspace.resolve(target, { access: "read" });
    return true;
  } catch {
    return "outside the workspace, not read";
  }
}

function allowedForUser(target: string, dir: string | undefined): true | string {
  if (!dir) return "no user config folder";
  const r = real(target) ?? target;
  const base = real(dir) ?? (() => {
    try {
      return realpathSync(dir);
    } catch {
      return dir;
    }
  })();
  return isInside(r, base) ? true : "outside the user config folder, not read";
}
