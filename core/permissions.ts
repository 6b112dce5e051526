/**
 * Permission decisions: explicit rules first (deny beats ask beats allow), then the mode's default
 * for the tool's risk. Rules look like `read_file`, `mcp__github__*`, `run_command(npm test:*)`.
 */
import type { PermissionMode, Risk } from "./types.js";

export type Decision = "allow" | "ask" | "deny";

export interface ParsedRule {
  raw: string;
  tool: RegExp;
  /** Absent: the rule covers every use of the tool. */
  pattern?: (subject: string) => boolean;
}

/** `*` matches any run of characters; a trailing `:*` (as in `npm test:*`) means "this prefix, then anything". */
export function wildcardMatcher(pattern: string): (s: string) => boolean {
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2);
    return (s) => s === prefix || s.startsWith(prefix + " ") || s.startsWith(prefix + ":");
  }
  const re = new RegExp("^" + pattern.split("*").map(escapeRe).join("[\\s\\S]*") + "$");
  return (s) => re.test(s);
}

function escapeRe(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

export function parseRule(raw: string): ParsedRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(raw.trim());
  if (!m) throw new Error(`invalid permission rule "${raw}"`);
  const toolGlob = m[1];
  const tool = new RegExp("^" + toolGlob.split("*").map((p) => p.split("?").map(escapeRe).join(".")).join(".*") + "$");
  const pattern = m[2] === undefined || m[2] === "*" || m[2] === "" ? undefined : wildcardMatcher(m[2]);
  return { raw, tool, pattern };
}

/**
 * A rule matches a call when its tool part matches the name and, if it has a pattern, the pattern
 * matches the call's subjects. `every` (used for allow rules) requires all subjects to match, so
 * `run_command(npm test:*)` does not allow `npm test && rm -rf ~`; deny and ask rules need only one.
 */
export function ruleMatches(rule: ParsedRule, toolName: string, subjects: string[] | undefined, every: boolean): boolean {
  if (!rule.tool.test(toolName)) return false;
  if (!rule.pattern) return true;
  if (!subjects || subjects.length === 0) return false;
  return every ? subjects.every(rule.pattern) : subjects.some(rule.pattern);
}

export interface PermissionRules {
  allow: ParsedRule[];
  ask: ParsedRule[];
  deny: ParsedRule[];
}

export function compileRules(rules: { allow?: string[]; ask?: string[]; deny?: string[] } | undefined): PermissionRules {
  return {
    allow: (rules?.allow ?? []).map(parseRule),
    ask: (rules?.ask ?? []).map(parseRule),
    deny: (rules?.deny ?? []).map(parseRule),
  };
}

export interface PermissionVerdict {
  decision: Decision;
  /** The rule that decided, or `mode:<mode>`. */
  by: string;
}

export function decide(
  rules: PermissionRules,
  mode: PermissionMode,
  toolName: string,
  risk: Risk,
  subjects: string[] | undefined,
): PermissionVerdict {
  const deny = rules.deny.find((r) => ruleMatches(r, toolName, subjects, false));
  if (deny) return { decision: "deny", by: deny.raw };
  const ask = rules.ask.find((r) => ruleMatches(r, toolName, subjects, false));
  if (mode === "plan" && risk !== "read") return { decision: "deny", by: "mode:plan" };
  if (ask) return { decision: "ask", by: ask.raw };
  const allow = rules.allow.find((r) => ruleMatches(r, toolName, subjects, true));
  if (allow) return { decision: "allow", by: allow.raw };
  return { decision: modeDefault(mode, risk), by: `mode:${mode}` };
}

export function modeDefault(mode: PermissionMode, risk: Risk): Decision {
  switch (mode) {
    case "bypass":
      return "allow";
    case "plan":
      return risk === "read" ? "allow" : "deny";
    case "acceptEdits":
      return risk === "read" || risk === "write" ? "allow" : "ask";
    default:
      return risk === "read" ? "allow" : "ask";
  }
}

/** The narrowest sensible rule that would allow this call without asking. */
export function suggestRule(toolName: string, subjects: string[] | undefined): string {
  if (!subjects || subjects.length !== 1) return toolName;
  const subject = subjects[0];
  const words = subject.trim().split(/\s+/);
  if (words.length > 2) return `${toolName}(${words.slice(0, 2).join(" ")}:*)`;
  return `${toolName}(${subject})`;
}

/**
 * Split a shell command into the simple commands it runs, so rules apply to each.
 * Command substitution can't be split reliably: it yields a subject no pattern matches.
 */
export function shellSubjects(command: string): string[] {
  const parts = command
    .split(/\|\||&&|[;|&\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (/`|\$\(|<\(|>\(/.test(command)) parts.push("\u0000substitution");
  return parts.length ? parts : [command.trim()];
}
