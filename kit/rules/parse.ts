/**
 * The permission rule grammar: `read_file`, `mcp__github__*`, `run_command(npm test:*)`, `Edit(src/**)`. A rule
 * is a tool part (a name, an alias or a glob over names) and an optional pattern over the call's subjects.
 * Pure functions: what a rule decides (deny beats ask beats allow, the mode's default) is the kernel's.
 */
import { picomatch, wildcardMatcher } from "../text/glob.js";
import { pathMatcher } from "./path-pattern.js";

export interface ParsedRule {
  raw: string;
  /** Whether the rule's tool part (a name or a glob such as `mcp__github__*`) names this tool. */
  tool: (toolName: string) => boolean;
  /** The tool part when it is a plain name: it may be an alias (`Bash` for `run_command`); globs match real names only. */
  toolName?: string;
  /** Absent: the rule covers every use of the tool. */
  pattern?: (subject: string) => boolean;
  /** The same pattern with path semantics (gitignore's), for tools whose subjects are paths. */
  pathPattern?: (relativePath: string) => boolean;
}

/** What a tool's subjects are: paths get gitignore semantics; anything else (commands, text) glob semantics. */
export type SubjectKind = "path" | "text";

/** A tool-name glob (`mcp__github__*`, `read_?ile`); names hold no `/`. */
export function toolNameMatcher(glob: string): (name: string) => boolean {
  if (!/[*?[{]/.test(glob)) return (name) => name === glob;
  return picomatch(glob, { dot: true });
}

export function parseRule(raw: string): ParsedRule {
  const m = /^([^()]+?)(?:\((.*)\))?$/.exec(raw.trim());
  if (!m) throw new Error(`invalid permission rule "${raw}"`);
  const tool = toolNameMatcher(m[1]);
  const toolName = /[*?[{]/.test(m[1]) ? undefined : m[1].trim();
  const named = toolName === undefined ? {} : { toolName };
  if (m[2] === undefined || m[2] === "*" || m[2] === "") return { raw, tool, ...named };
  const text = m[2];
  let path: ((s: string) => boolean) | undefined;
  return { raw, tool, ...named, pattern: wildcardMatcher(text), pathPattern: (s) => (path ??= pathMatcher(text))(s) };
}

/** A tool as rules see it: its name, and the aliases a plain-named rule may use instead. */
export type RuleTarget = string | { name: string; aliases?: readonly string[] };

/** Whether a rule's tool part names this tool: by its name, a glob over it, or exactly one of its aliases. */
export function namesTool(rule: ParsedRule, target: RuleTarget): boolean {
  if (typeof target === "string") return rule.tool(target);
  if (rule.tool(target.name)) return true;
  return rule.toolName !== undefined && (target.aliases?.includes(rule.toolName) ?? false);
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
