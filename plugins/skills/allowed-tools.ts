/**
 * A skill's `allowed-tools` as permission rules of this host. Claude Code's tool names map to ours
 * (`Bash(git:*)` → `run_command(git:*)`, the parentheses kept); a name that is already one of the host's
 * tools is kept as it is; anything else is dropped, and the caller says so. Nothing is ever allowed by
 * this mapping alone: the rules go to `ctx.requestGrant`, which asks the user (or follows config).
 */
import type { RegisteredSkill } from "../../core/index.js";

const CLAUDE_CODE_NAMES: Record<string, string> = {
  Bash: "run_command",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Glob: "list_files",
  LS: "list_files",
  Grep: "grep",
};

const RULE_RE = /^([A-Za-z0-9_*?-]+)(\(.*\))?$/;

export interface MappedTools {
  /** As the skill lists them. */
  listed: string[];
  /** Permission rules to ask for, deduplicated. */
  rules: string[];
  /** Entries no tool here answers to. */
  dropped: string[];
}

/**
 * `meta.allowedTools` (an array, or a space-separated string as in the frontmatter), or
 * `meta["allowed-tools"]`. Split on spaces and commas outside parentheses, so `Bash(git log:*)` stays one
 * entry even when an earlier split broke it in two.
 */
export function allowedToolsOf(s: RegisteredSkill): string[] {
  const raw = s.meta?.allowedTools ?? s.meta?.["allowed-tools"];
  return splitAllowedTools(raw);
}

export function splitAllowedTools(raw: unknown): string[] {
  const text = Array.isArray(raw) ? raw.filter((t) => typeof t === "string").join(" ") : typeof raw === "string" ? raw : "";
  return text.match(/[^\s,()]+(\([^)]*\))?/g) ?? [];
}

export function mapAllowedTools(listed: string[], isTool: (name: string) => boolean): MappedTools {
  const rules: string[] = [];
  const dropped: string[] = [];
  for (const entry of listed) {
    const m = RULE_RE.exec(entry);
    const ours = m ? (Object.hasOwn(CLAUDE_CODE_NAMES, m[1]) ? CLAUDE_CODE_NAMES[m[1]] : isTool(m[1]) ? m[1] : undefined) : undefined;
    if (!m || !ours) {
      dropped.push(entry);
      continue;
    }
    const rule = `${ours}${m[2] ?? ""}`;
    if (!rules.includes(rule)) rules.push(rule);
  }
  return { listed, rules, dropped };
}
