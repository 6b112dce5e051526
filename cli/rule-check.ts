/**
 * Permission rules that match no registered tool: harmless for allow rules, alarming for deny rules
 * (a `bash(rm:*)` denies nothing: names are case-sensitive). `agent doctor` warns about each, with the
 * rule it most likely means when a tool is known by that name in another case. Rules written with an
 * alias (Claude Code's `Bash(rm:*)`) match the tool and are not reported.
 */
import { type PluginHost } from "../core/index.js";
import { parsePermissionRule, ruleNamesTool } from "../core/embed.js";

export interface RuleWarning {
  key: string;
  rule: string;
  message: string;
  suggestion?: string;
}

export function unmatchedRules(host: PluginHost): RuleWarning[] {
  const tools = host.tools.list();
  const out: RuleWarning[] = [];
  const perms = host.config.permissions ?? {};
  // Where a rule came from (a rule pasted into .claude/settings.json is named with that file).
  const origin = (list: string, rule: string) => host.configOrigins.find((o) => o.key === `permissions.${list}` && o.value === rule);
  for (const list of ["deny", "ask", "allow"] as const) {
    for (const [i, rule] of (perms[list] ?? []).entries()) {
      const parsed = parsePermissionRule(rule);
      if (tools.some((t) => ruleNamesTool(parsed, t))) continue;
      const open = rule.indexOf("(");
      const toolPart = (open < 0 ? rule : rule.slice(0, open)).trim().toLowerCase();
      // Names are case-sensitive: `bash(rm:*)` or `Read_File` name nothing, but the intent is plain.
      const known = tools.find((t) => [t.name, ...(t.aliases ?? [])].some((n) => n.toLowerCase() === toolPart));
      const suggestion = known ? `${known.name}${open < 0 ? "" : rule.slice(open)}` : undefined;
      const effect = list === "deny" ? "it denies nothing" : list === "ask" ? "it asks about nothing" : "it allows nothing";
      const from = origin(list, rule);
      const where = from ? ` (from ${from.file}${from.written && from.written !== rule ? `, written "${from.written}"` : ""})` : "";
      out.push({
        key: `permissions.${list}[${i}]`,
        rule,
        suggestion,
        message: `permissions.${list}[${i}] "${rule}"${where} names no registered tool, so ${effect}${hint(toolPart, suggestion)}`,
      });
    }
  }
  return out;
}

function hint(toolPart: string, suggestion: string | undefined): string {
  if (suggestion) return `; did you mean "${suggestion}"?`;
  const claude = [...CLAUDE_ONLY_TOOLS].find((t) => t.toLowerCase() === toolPart);
  if (claude) return ` (Claude Code's ${claude} has no equivalent in agent-host unless a plugin or MCP server adds a tool by that name)`;
  return " (is its plugin or MCP server loaded?)";
}

/** What a deny rule on a shell command cannot see, said once per rule by `agent doctor`. */
export function shellDenyNotes(host: PluginHost): string[] {
  const shell = host.tools.list().find((t) => t.name === "run_command");
  if (!shell) return [];
  const out: string[] = [];
  for (const [i, rule] of (host.config.permissions?.deny ?? []).entries()) {
    const parsed = parsePermissionRule(rule);
    if (!parsed.pattern || !ruleNamesTool(parsed, shell)) continue;
    out.push(
      `permissions.deny[${i}] "${rule}" meets the command however it is spelt, wrapped or nested, but not what an interpreter ` +
        "does with inline code (python -c, node -e, perl -e, ruby -e, awk 'BEGIN{system(…)}') nor a program's own code (a script, make, git hooks): " +
        "those are bounded by the OS sandbox, not by rules",
    );
  }
  return out;
}

/** Claude Code's tools with no tool of the same purpose here (unless a plugin or server adds one by that name). */
const CLAUDE_ONLY_TOOLS = new Set(["WebFetch", "WebSearch", "NotebookEdit", "NotebookRead", "TodoWrite", "KillShell", "BashOutput", "ExitPlanMode", "SlashCommand"]);

/**
 * The one line a run prints when rules name Claude Code tools agent-host does not have (a deny rule on
 * `WebFetch` denies nothing here): said, never silent; `agent doctor` lists the rules one by one.
 */
export function claudeOnlyRulesLine(host: PluginHost): string | undefined {
  const named = new Set<string>();
  for (const w of unmatchedRules(host)) {
    const open = w.rule.indexOf("(");
    const tool = open < 0 ? w.rule : w.rule.slice(0, open);
    if (CLAUDE_ONLY_TOOLS.has(tool)) named.add(tool);
  }
  if (!named.size) return undefined;
  const list = [...named].join(", ");
  return `permission rules name Claude Code tools agent-host does not have (${list}): they match nothing here; \`agent doctor\` lists them`;
}
