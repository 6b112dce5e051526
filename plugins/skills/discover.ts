/**
 * Where skills come from, highest precedence first: the project (`.agent/skills`, `.agents/skills`,
 * `.claude/skills`), the user (`<config home>/skills`, `~/.agents/skills`, `~/.claude/skills`), the
 * plugins that ship skill folders (in plugin order), and the skills bundled with agent-host. The
 * project wins over the user as project config wins over user config: a repository's skills are
 * versioned with its code and shared by its team. Each skill is a folder holding a `SKILL.md`.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseSkillFile, type SkillFile } from "../../kit/index.js";

export type SkillScope = "project" | "user" | "plugin" | "bundled";

export interface SkillRoot {
  dir: string;
  scope: SkillScope;
  /** Shown as the skill's source, e.g. `project:.claude/skills`, or the plugin's name for a plugin's skills. */
  label: string;
}

export interface FoundSkill extends SkillFile {
  root: SkillRoot;
}

export interface SkillProblem {
  path: string;
  message: string;
}

export interface Shadowed {
  name: string;
  /** The SKILL.md that won, and the one it hid. */
  winner: string;
  loser: string;
  loserSource: string;
}

export interface Discovery {
  skills: FoundSkill[];
  problems: SkillProblem[];
  shadowed: Shadowed[];
}

/** With user config off (`userConfigDir` undefined: tests, `createHost({ userConfigDir: false })`), no user folder is read either. */
export function skillRoots(o: { projectRoot: string; userConfigDir: string | undefined; plugins: readonly { name: string; skillDirs: readonly string[] }[]; bundledDir?: string }): SkillRoot[] {
  const home = os.homedir();
  const roots: SkillRoot[] = [];
  for (const rel of [".agent/skills", ".agents/skills", ".claude/skills"]) roots.push({ dir: path.join(o.projectRoot, rel), scope: "project", label: `project:${rel}` });
  if (o.userConfigDir !== undefined) {
    roots.push({ dir: path.join(o.userConfigDir, "skills"), scope: "user", label: "user:config" });
    for (const rel of [".agents/skills", ".claude/skills"]) roots.push({ dir: path.join(home, rel), scope: "user", label: `user:~/${rel}` });
  }
  // A plugin's skills are shown as its own, like its tools and commands.
  for (const p of o.plugins) for (const dir of p.skillDirs) roots.push({ dir, scope: "plugin", label: p.name });
  if (o.bundledDir) roots.push({ dir: o.bundledDir, scope: "bundled", label: "bundled" });
  return roots;
}

/** Folders directly under `dir` that hold a SKILL.md (symlinked folders count). */
function skillFolders(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return entries.filter((e) => {
    try {
      return statSync(path.join(dir, e)).isDirectory() && existsSync(path.join(dir, e, "SKILL.md"));
    } catch {
      return false;
    }
  });
}

export async function discoverSkills(roots: SkillRoot[]): Promise<Discovery> {
  const out: Discovery = { skills: [], problems: [], shadowed: [] };
  const byName = new Map<string, FoundSkill>();
  const seenDirs = new Set<string>();
  for (const root of roots) {
    const real = safeRealpath(root.dir);
    if (!real || seenDirs.has(real)) continue; // the same folder reached twice (a symlinked ~/.claude) counts once
    seenDirs.add(real);
    for (const folder of skillFolders(root.dir)) {
      const file = path.join(root.dir, folder, "SKILL.md");
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (err) {
        out.problems.push({ path: file, message: `could not be read: ${(err as Error).message}` });
        continue;
      }
      const parsed = await parseSkillFile(file, text);
      if (!parsed.ok) {
        out.problems.push({ path: file, message: parsed.error });
        continue;
      }
      const skill: FoundSkill = { ...parsed.skill, root };
      const winner = byName.get(skill.name);
      if (winner) {
        out.shadowed.push({ name: skill.name, winner: winner.file, loser: skill.file, loserSource: root.label });
        continue;
      }
      byName.set(skill.name, skill);
      out.skills.push(skill);
    }
  }
  return out;
}

function safeRealpath(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? realpathSync.native(dir) : undefined;
  } catch {
    return undefined;
  }
}
