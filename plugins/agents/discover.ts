/**
 * Where subagent files live, highest precedence first: the project (`.agent/agents`, `.claude/agents`),
 * then the user (`<config home>/agents`, `~/.claude/agents`). Each `*.md` file (in subfolders too, as
 * Claude Code reads them) is one agent. A name found twice keeps the first; the other is reported as
 * shadowed, and a file that cannot be read or parsed is reported with its path and the reason.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAgentFile, type AgentFile } from "./agent-file.js";

export interface AgentRoot {
  dir: string;
  /** Shown as the agents' source: `project`, `user`. */
  source: string;
}

export interface AgentProblem {
  path: string;
  message: string;
}

export interface AgentDiscovery {
  agents: AgentFile[];
  problems: AgentProblem[];
}

/** Subfolders read below a root. */
const MAX_DEPTH = 3;

export function agentRoots(projectRoot: string, userConfigDir: string | undefined): AgentRoot[] {
  const roots: AgentRoot[] = [".agent/agents", ".claude/agents"].map((rel) => ({ dir: path.join(projectRoot, rel), source: "project" }));
  if (userConfigDir !== undefined) roots.push({ dir: path.join(userConfigDir, "agents"), source: "user" }, { dir: path.join(os.homedir(), ".claude", "agents"), source: "user" });
  return roots;
}

/** The `.md` files under `dir`, sorted, subfolders after the folder's own files. */
function markdownFiles(dir: string, depth = 0): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const files: string[] = [];
  const folders: string[] = [];
  for (const e of entries) {
    const full = path.join(dir, e);
    try {
      const st = statSync(full);
      if (st.isFile() && e.endsWith(".md")) files.push(full);
      else if (st.isDirectory() && depth < MAX_DEPTH && !e.startsWith(".")) folders.push(full);
    } catch {
      // A dangling link: nothing to read.
    }
  }
  return [...files, ...folders.flatMap((f) => markdownFiles(f, depth + 1))];
}

export function discoverAgents(roots: AgentRoot[]): AgentDiscovery {
  const out: AgentDiscovery = { agents: [], problems: [] };
  const byName = new Map<string, string>();
  const seen = new Set<string>();
  for (const root of roots) {
    for (const file of markdownFiles(root.dir)) {
      if (seen.has(file)) continue;
      seen.add(file);
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (err) {
        out.problems.push({ path: file, message: `could not be read: ${(err as Error).message}` });
        continue;
      }
      const parsed = parseAgentFile(file, text, root.source);
      if (!parsed.ok) {
        out.problems.push({ path: file, message: parsed.error });
        continue;
      }
      const name = parsed.file.definition.name;
      const winner = byName.get(name);
      if (winner) {
        out.problems.push({ path: file, message: `agent "${name}" is shadowed by ${winner}` });
        continue;
      }
      byName.set(name, file);
      out.agents.push(parsed.file);
    }
  }
  return out;
}
