/**
 * Permission decisions: explicit rules first (deny beats ask beats allow), then the mode's default
 * for the tool's risk. Rules look like `read_file`, `mcp__github__*`, `run_command(npm test:*)`.
 */
import { picomatch, wildcardMatcher } from "../../kit/text/glob.js";
import { allowSubjects, denySubjects, isUncertain, opaqueReason, plainSubjects } from "../../kit/shell/subject-marks.js";
import type { PermissionMode, Risk } from "../types.js";
import { byText, type Provenance, type Verdict } from "./verdict.js";

export type Decision = "allow" | "ask" | "deny";

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

/**
 * A path pattern, as in .gitignore: `*.txt` (no slash) matches that name in any folder; `/x` or
 * `src/*.ts` (a slash) is anchored at the project root; `**` crosses folders; a folder matches
 * everything under it (`build/`, `build`). Subjects are paths relative to the project root.
 */
export function pathMatcher(pattern: string): (relativePath: string) => boolean {
  let p = pattern.trim();
  const opts = { dot: true, nonegate: true, noextglob: true, nobrace: true } as const;
  // `//abs/path` (Claude Code's spelling): an absolute path, for what lies outside the project root
  // (subjects there are absolute; inside the root they are relative, so it never matches those).
  if (p.startsWith("//")) {
    const abs = `/${p.replace(/^\/+/, "").replace(/\/+$/, "")}`;
    const file = picomatch(abs, opts);
    const under = picomatch(abs === "/" ? "/**" : `${abs}/**`, opts);
    return (s) => s.startsWith("/") && (file(s) || under(s));
  }
  const anchored = p.startsWith("/") || p.replace(/\/+$/, "").includes("/");
  p = p.replace(/^\/+/, "").replace(/\/+$/, "");
  if (!p) return () => true;
  const file = picomatch(anchored ? p : `**/${p}`, opts);
  const under = picomatch(anchored ? `${p}/**` : `**/${p}/**`, opts);
  return (rel) => file(rel) || under(rel);
}

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
  toolName: RuleTarget,
  risk: Risk,
  subjects: string[] | undefined,
  kind: SubjectKind = "text",
): PermissionVerdict {
  const v = judge(rules, mode, toolName, risk, subjects, kind);
  return { decision: v.decision, by: byText(v.why) };
}

/** What `decide` says, with why as data (`Verdict`): deny rules, then plan mode, ask rules, allow rules, the mode. */
export function judge(rules: PermissionRules, mode: PermissionMode, toolName: RuleTarget, risk: Risk, subjects: string[] | undefined, kind: SubjectKind = "text"): Verdict {
  // Deny and ask rules also see the deny-only forms (a command without its wrapper; see subject-marks.ts).
  const wide = subjects && denySubjects(subjects);
  const deny = matching(rules.deny, toolName, wide, kind, subjects);
  if (deny) return { decision: "deny", why: deny };
  const ask = matching(rules.ask, toolName, wide, kind, subjects);
  if (mode === "plan" && risk !== "read") return { decision: "deny", why: { kind: "mode", mode: "plan" } };
  if (ask) return { decision: "ask", why: ask };
  const allow = allowCoverage(rules.allow, toolName, subjects, kind);
  if (allow) return { decision: "allow", why: { kind: "rule", rule: allow.map((r) => r.raw).join(", ") } };
  return { decision: modeDefault(mode, risk), why: { kind: "mode", mode } };
}

/** The deny (or ask) rule a call meets: one that matches, or any for its tool when the call cannot be judged. */
function matching(list: ParsedRule[], toolName: RuleTarget, wide: string[] | undefined, kind: SubjectKind, subjects: string[] | undefined): Provenance | undefined {
  const hit = list.find((r) => ruleMatches(r, toolName, wide, false, kind));
  if (hit) return { kind: "rule", rule: hit.raw };
  const unsure = unjudgeable(list, toolName, subjects);
  return unsure && { kind: "uncertain", rule: unsure.raw };
}

/**
 * A call whose subjects say what it runs cannot be judged (a computed command word, a nested shell with
 * computed text) meets every deny (or ask) rule for its tool: any of them could match what it runs.
 */
function unjudgeable(rules: ParsedRule[], toolName: RuleTarget, subjects: string[] | undefined): ParsedRule | undefined {
  if (!subjects || opaqueReason(subjects) === undefined) return undefined;
  const rule = rules.find((r) => namesTool(r, toolName));
  return rule;
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

/**
 * The allow rules that together cover a call: every subject must be matched by some rule (a rule
 * without a pattern covers them all), so `allow: ["run_command(cd:*)", "run_command(npm test:*)"]`
 * allows `cd app && npm test`, while `npm test && rm -rf ~` stays uncovered. Undefined if not covered.
 */
export function allowCoverage(allow: ParsedRule[], toolName: RuleTarget, subjects: string[] | undefined, kind: SubjectKind = "text"): ParsedRule[] | undefined {
  const candidates = allow.filter((r) => namesTool(r, toolName));
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
 * pattern with `*`, `?` or `[`, a folder or a `:*` prefix never does. Protected paths need this (permit.ts).
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

/** The rules that would allow exactly this call: one per subject, never broader than what was asked. */
export function suggestRule(toolName: string, subjects: string[] | undefined): string {
  return suggestRules(toolName, subjects).join(", ");
}

/**
 * One exact rule per subject (deduplicated); the bare tool name when the call has no subject to narrow
 * by. None when a subject is uncertain (a command substitution, a syntax error): no rule can allow
 * exactly that, so the user can only answer once.
 */
export function suggestRules(toolName: string, subjects: string[] | undefined): string[] {
  if (!subjects || subjects.length === 0) return [toolName];
  if (isUncertain(subjects)) return [];
  return [...new Set(plainSubjects(subjects).map((subject) => `${toolName}(${subject.trim()})`))];
}

/** A session grant of exactly `subject`: matched as text, never as a glob (it may hold a `*`). */
export function exactRule(toolName: string, subject: string): ParsedRule {
  const tool = (name: string) => name === toolName;
  return { raw: `${toolName}(${subject})`, tool, pattern: (s) => s === subject };
}

/**
 * The simple commands a shell command line runs (pipes, lists, subshells, substitutions; quotes
 * respected), so rules apply to each: allow rules must cover all of them, deny rules any. A line that
 * cannot be judged by its text alone includes a subject no rule matches. Parsed with a real bash parser.
 */
export { shellCommands as shellSubjects } from "../../kit/shell/index.js";
