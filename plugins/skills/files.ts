/**
 * A skill's other files (scripts/, references/, assets/ …), listed when it loads so the model knows
 * what it can read or run without exploring. Bounded: a skill folder holding a whole repository must
 * not flood the context (or the walk take long).
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
import path from "node:path";
import type { RegisteredSkill } from "../../core/index.js";

export const MAX_FILES = 100;
const MAX_DEPTH = 6;
/** Entries looked at in all, so a huge folder costs little even when few files are listed. */
const MAX_VISITS = 5000;
const SKIP = new Set(["node_modules", "__pycache__", ".git", ".venv"]);

export interface SkillFiles {
  /** Absolute paths (or, for MCP skills, resource URIs). */
  files: string[];
  /** How many more there were (0 when the list is complete; -1: too many to count). */
  more: number;
  /** The folder the files are in, when the skill has one on disk. */
  dir?: string;
}

/** The skill's folder on disk: `meta.dir` (set by the skills plugin for SKILL.md skills). */
export function skillDir(s: RegisteredSkill): string | undefined {
  const dir = s.meta?.dir;
  return typeof dir === "string" && path.isAbsolute(dir) ? dir : undefined;
}

export function listSkillFiles(s: RegisteredSkill): SkillFiles {
  const dir = skillDir(s);
  if (!dir) {
    const uris = Array.isArray(s.meta?.files) ? (s.meta.files as unknown[]).filter((f): f is string => typeof f === "string") : [];
    return { files: uris.slice(0, MAX_FILES), more: Math.max(0, uris.length - MAX_FILES) };
  }
  const files: string[] = [];
  let more = 0;
  let visits = 0;
  const walk = (folder: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return;
    }
    for (const e of entries) {
      if (++visits > MAX_VISITS) {
        more = -1;
        return;
      }
      if (e.name.startsWith(".") || SKIP.has(e.name)) continue;
      const full = path.join(folder, e.name);
      // Symlinked folders are not followed (no loops); symlinked files are listed.
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) walk(full, depth + 1);
      } else if (e.isFile() || (e.isSymbolicLink() && isFile(full))) {
        if (depth === 0 && e.name === "SKILL.md") continue;
        if (files.length < MAX_FILES) files.push(full);
        else if (more >= 0) more++;
      }
      if (more < 0) return;
    }
  };
  walk(dir, 0);
  return { files, more, dir };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
