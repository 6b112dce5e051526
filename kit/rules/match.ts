/**
 * Whether permission rules match a call: a tool (by name or alias) and its subjects (commands, paths, text).
 * Which list wins and what the mode says when none matches is the kernel's decision, not this file's.
 */
import { allowSubjects, denySubjects, isUncertain, opaqueReason } from "../shell/subject-marks.js";
import { namesTool, type ParsedRule, type PermissionRules, type RuleTarget, type SubjectKind } from "./parse.js";
import { projectPath } from "./path-pattern.js";

/**
 * A rule matches a call when its tool part matches the name and, if it has a pattern, the pattern
 * matches the call's subjects. `every` (used for allow rules) requires all subjects to match, so
 * `run_command(npm test:*)` does not allow `npm test && rm -rf ~`; deny and ask rules need only one.
 */
export function ruleMatches(rule: ParsedRule, target: RuleTarget, subjects: string[] | undefined, every: boolean, kind: SubjectKind = "text"): boolean {
  if (!namesTool(rule, target)) return false;
  if (!rule.pattern) return true;
  if (!subjects || subjects.length === 0) return false;
  const match = matcherFor(rule, kind)!;
  return every ? subjects.every(match) : subjects.some(match);
}

function matcherFor(rule: ParsedRule, kind: SubjectKind): ((s: string) => boolean) | undefined {
  return kind === "path" ? (rule.pathPattern ?? rule.pattern) : rule.pattern;
}

/**
 * The deny (or ask) rule a call meets: the first that matches one of its subjects, the deny-only forms
 * included (a command without its wrapper; see subject-marks.ts); else, when the call's subjects say it
 * cannot be judged (a computed command word, a nested shell with computed text), the first rule for its
 * tool, `uncertain`: any of them could match what it runs.
 */
export function metRule(list: ParsedRule[], target: RuleTarget, subjects: string[] | undefined, kind: SubjectKind = "text"): { rule: ParsedRule; uncertain: boolean } | undefined {
  const wide = subjects && denySubjects(subjects);
  const hit = list.find((r) => ruleMatches(r, target, wide, false, kind));
  if (hit) return { rule: hit, uncertain: false };
  if (!subjects || opaqueReason(subjects) === undefined) return undefined;
  const rule = list.find((r) => namesTool(r, target));
  return rule && { rule, uncertain: true };
}

/**
 * For a walk (list_files, grep): whether a deny or ask rule with a pattern that the call's own subjects
 * did not meet names `abs` (a path under `root`, or outside it). Those paths were never judged, so the
 * walk leaves them out. The rules are read at the first question.
 */
export function unmetPathRules(rules: PermissionRules, target: RuleTarget, subjects: string[], root: string): (abs: string) => boolean {
  let unmet: ParsedRule[] | undefined;
  return (abs) => {
    unmet ??= [...rules.deny, ...rules.ask].filter((r) => r.pattern && !ruleMatches(r, target, subjects, false, "path"));
    return unmet.length > 0 && unmet.some((r) => ruleMatches(r, target, [projectPath(root, abs)], false, "path"));
  };
}

/**
 * The allow rules that together cover a call: every subject must be matched by some rule (a rule
 * without a pattern covers them all), so `allow: ["run_command(cd:*)", "run_command(npm test:*)"]`
 * allows `cd app && npm test`, while `npm test && rm -rf ~` stays uncovered. Undefined if not covered.
 */
export function allowCoverage(allow: ParsedRule[], target: RuleTarget, subjects: string[] | undefined, kind: SubjectKind = "text"): ParsedRule[] | undefined {
  const candidates = allow.filter((r) => namesTool(r, target));
  const whole = candidates.find((r) => !r.pattern);
  if (whole) return [whole];
  // Part of the call is only known when it runs: no pattern can be said to cover it.
  if (!subjects || subjects.length === 0 || isUncertain(subjects)) return undefined;
  const used: ParsedRule[] = [];
  for (const subject of allowSubjects(subjects)) {
    const rule = candidates.find((r) => matcherFor(r, kind)!(subject));
    if (!rule) return undefined;
    if (!used.includes(rule)) used.push(rule);
  }
  return used;
}

/**
 * Whether `rule` names exactly this one subject: a plain tool name (or alias) with a pattern that has no
 * wildcard and spells the subject itself (`write_file(.mcp.json)`, `write_file(/.mcp.json)`,
 * `run_command(> .mcp.json)`, what "always for this project" writes). A bare tool name, a tool glob, a
 * pattern with `*`, `?` or `[`, a folder or a `:*` prefix never does. The kernel's protected paths need this.
 */
export function namesExactly(rule: ParsedRule, target: RuleTarget, subject: string, kind: SubjectKind): boolean {
  if (rule.toolName === undefined || !rule.pattern || !namesTool(rule, target)) return false;
  const text = /^[^()]+?\((.*)\)$/s.exec(rule.raw.trim())?.[1];
  const literal = text === undefined ? undefined : unescapeLiteral(text);
  if (literal === undefined) return false;
  const spelt = kind !== "path" ? literal : literal.startsWith("//") ? `/${literal.replace(/^\/+/, "")}` : literal.replace(/^\//, "");
  return spelt === subject && ruleMatches(rule, target, [subject], true, kind);
}

/** Characters a pattern may read as syntax once it holds a backslash (see exact-rules.ts). */
const ESCAPED_SPECIAL = "*?()|{}[]+@!^$";

/** A pattern's text with its escapes removed, or undefined when it holds a wildcard. */
function unescapeLiteral(text: string): string | undefined {
  const strict = text.includes("\\");
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") out += text[++i] ?? "";
    else if ("*?[".includes(c) || (strict && ESCAPED_SPECIAL.includes(c))) return undefined;
    else out += c;
  }
  return out;
}

/** Why a call that cannot be judged was denied by the deny rule `rule`, and how to write it so it can be. */
export function unjudgeableReason(rule: string, subjects: string[] | undefined): string {
  const why = (subjects && opaqueReason(subjects)) ?? "what it runs is only known when it runs";
  return (
    `what it runs cannot be judged from its text (${why}), and the deny rule "${rule}" may match what it runs. ` +
    "Write the command so it can be judged: a literal command word (no variables, substitutions, globs or braces in it), " +
    "and literal text for any nested shell (`bash -c '…'`, `eval`), no pipe into a shell"
  );
}
