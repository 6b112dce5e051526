/**
 * Rules written for one call: what an answer to a permission prompt grants (the session's, the project's).
 *
 * Rules that can be written to a config file and read back meaning exactly one call. A session grant
 * matches subjects as text (`exactRule`), but a rule in a file is a pattern: `run_command(rm *.txt)`
 * would also allow `rm -rf / x.txt`, and `write_file(a.ts)` any `a.ts` in any folder. So glob
 * characters are escaped, paths anchored at the project root, and each rule is checked against the
 * subject it stands for; a subject that cannot be written that way (a backslash, unbalanced
 * parentheses, `..`) gets no rule, and the user can allow it for the session only.
 */
import { ruleProblem } from "../text/rule-syntax.js";
import { parseRule, type ParsedRule, type SubjectKind } from "./parse.js";
import { isUncertain, plainSubjects } from "../shell/subject-marks.js";

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
 * Punctuation picomatch may read as syntax (globs, and once a pattern holds an escape, regex groups,
 * alternations and quantifiers: `(a)|b`, `a{2}`); each escaped with a backslash, which picomatch reads
 * as that character. Letters and digits are never escaped (`\d` would be a regex class).
 */
const SPECIAL = /[*?()|{}[\]+@!^$]/g;
const TEXT_SPECIAL = SPECIAL;
const PATH_SPECIAL = SPECIAL;

function textRule(tool: string, subject: string): string | undefined {
  if (subject.includes("\\")) return undefined;
  // picomatch reads a leading `./` as optional: `./run.sh` would also match `run.sh`.
  const body = subject.replace(TEXT_SPECIAL, (c) => `\\${c}`).replace(/^\.\//, "\\./");
  return `${tool}(${body})`;
}

function pathRule(tool: string, subject: string): string | undefined {
  if (subject.includes("\\") || subject === "." || subject === "" || subject.split("/").includes("..")) return undefined;
  const body = subject.replace(PATH_SPECIAL, (c) => `\\${c}`);
  // A relative path is anchored at the root (`/src/a.ts`); an absolute one (outside the root) is `//abs`.
  return `${tool}(/${body})`;
}

/**
 * One rule per subject that, read back from a file, allows exactly that subject; none at all when a
 * subject cannot be written so (the call is then only allowed once or for the session).
 */
export function projectRules(toolName: string, subjects: string[] | undefined, kind: SubjectKind): string[] {
  if (!subjects || subjects.length === 0) return [toolName];
  if (isUncertain(subjects)) return [];
  const out: string[] = [];
  for (const raw of plainSubjects(subjects)) {
    const subject = raw.trim();
    if (subject !== raw) return [];
    const rule = kind === "path" ? pathRule(toolName, subject) : textRule(toolName, subject);
    if (!rule || ruleProblem(rule)) return [];
    const parsed = parseRule(rule);
    const matches = kind === "path" ? parsed.pathPattern : parsed.pattern;
    if (!matches?.(subject)) return [];
    if (!out.includes(rule)) out.push(rule);
  }
  return out;
}
