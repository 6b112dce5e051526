/**
 * A command's `allowed-tools` as permission rules: a name a registered tool answers to (its own, or one
 * of its `aliases`, such as Claude Code's `Bash` for `run_command`) becomes that tool's name, keeping the
 * pattern (`Bash(git add:*)` is `run_command(git add:*)`); anything else (`Task`, `WebFetch`, a tool not
 * registered here) is dropped and named, never guessed at.
 */
import type { RegisteredTool } from "../../core/index.js";

/** Claude Code's names, for a host whose tools declare no aliases. */
const CLAUDE_TOOLS: Record<string, string> = {
  Bash: "run_command",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Glob: "list_files",
  LS: "list_files",
  Grep: "grep",
};

/** What config's permission rules accept (core's PermissionRuleSchema). */
const RULE_RE = /^[a-zA-Z0-9_*?-]+(\(.*\))?$/s;

export function mapAllowedTools(entries: readonly string[], tools: readonly Pick<RegisteredTool, "name" | "aliases">[]): { rules: string[]; dropped: string[] } {
  const ourName = (name: string) =>
    tools.find((t) => t.name === name)?.name ??
    tools.find((t) => t.aliases?.includes(name))?.name ??
    (Object.hasOwn(CLAUDE_TOOLS, name) ? CLAUDE_TOOLS[name] : undefined);
  const rules: string[] = [];
  const dropped: string[] = [];
  for (const entry of entries) {
    const m = /^([^()]+?)(\(.*\))?$/s.exec(entry.trim());
    const ours = m ? ourName(m[1].trim()) : undefined;
    const rule = ours === undefined ? undefined : `${ours}${m?.[2] ?? ""}`;
    if (rule && RULE_RE.test(rule)) {
      if (!rules.includes(rule)) rules.push(rule);
    } else dropped.push(entry);
  }
  return { rules, dropped };
}
