/**
 * Tool lists written for other agents (a SKILL.md's or a command's `allowed-tools`, Claude Code's
 * settings) as permission rules of this host: a name a registered tool answers to (its own name, or one
 * of its `aliases`: the tools plugin declares Claude Code's `Bash`, `Read`…) becomes that tool's name,
 * its pattern kept (`Bash(git add:*)` is `run_command(git add:*)`). Anything else is dropped and named.
 */
import { ruleProblem } from "./text/rule-syntax.js";

/** What a tool list is matched against: a tool's name and the names it also answers to. */
export interface NamedTool {
  readonly name: string;
  readonly aliases?: readonly string[];
}

/** Split a tool list on spaces and commas outside parentheses: `Bash(git log:*) Read, Grep` is three entries. */
export function splitToolList(raw: unknown): string[] {
  const text = Array.isArray(raw) ? raw.filter((t): t is string => typeof t === "string").join(" ") : typeof raw === "string" ? raw : "";
  const out: string[] = [];
  let current = "";
  let depth = 0;
  for (const c of text) {
    if (c === "(") depth++;
    else if (c === ")" && depth > 0) depth--;
    if (depth === 0 && (c === "," || /\s/.test(c))) {
      if (current) out.push(current);
      current = "";
    } else current += c;
  }
  if (current) out.push(current);
  return out;
}

/** The host's rules for such a list, and the entries no registered tool answers to. */
export function toolRules(entries: readonly string[], tools: readonly NamedTool[]): { rules: string[]; dropped: string[] } {
  const rules: string[] = [];
  const dropped: string[] = [];
  for (const entry of entries) {
    const open = entry.indexOf("(");
    const name = (open < 0 ? entry : entry.slice(0, open)).trim();
    const tool = tools.find((t) => t.name === name) ?? tools.find((t) => t.aliases?.includes(name));
    const rule = tool ? `${tool.name}${open < 0 ? "" : entry.slice(open)}` : undefined;
    if (rule && !ruleProblem(rule)) {
      if (!rules.includes(rule)) rules.push(rule);
    } else dropped.push(entry);
  }
  return { rules, dropped };
}
