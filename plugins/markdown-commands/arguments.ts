/**
 * Argument placeholders, in two dialects:
 * - `claude` (files under `.claude/commands`), as Claude Code does it: `$ARGUMENTS` is the whole argument
 *   string as typed, `$ARGUMENTS[N]` and `$N` are 0-based positional arguments, `$name` is a named one
 *   (frontmatter `arguments`), `${CLAUDE_SESSION_ID}` is the session id.
 * - `agent` (our own folders): `$ARGUMENTS` is the whole string, `$1`…`$9` are 1-based, as in a shell
 *   script and opencode (`$0` and `$ARGUMENTS[N]` are plain text here); `$name` for named arguments too.
 * A missing argument is empty. Substitution is one pass over the template: a value is never scanned
 * again, so `$1`, `!`…`` or `@x` inside what the user typed stays text.
 */
import { parse, quote, type ParseEntry } from "shell-quote";

export type Dialect = "claude" | "agent";

export interface ArgumentValues {
  dialect: Dialect;
  /** The argument string as typed. */
  raw: string;
  /** The positional arguments, split like a shell (quotes group, `$VAR` stays text). */
  list: string[];
  /** Named arguments, in order: `names[i]` is `list[i]`. */
  names: string[];
  sessionId: string;
}

/** Split like a shell: `a "b c"` is two arguments. Operators and comments keep their text (`#12` is an argument, not a comment). */
export function splitArguments(raw: string): string[] {
  if (!raw.trim()) return [];
  let entries: (ParseEntry | string)[];
  try {
    // Returning "$KEY" keeps variables as the user typed them instead of expanding them to "".
    entries = parse(raw, (key: string) => `$${key}`);
  } catch {
    return raw.split(/\s+/).filter(Boolean);
  }
  const out: string[] = [];
  for (const e of entries) {
    if (typeof e === "string") out.push(e);
    else if ("comment" in e) out.push(...splitArguments(`\\#${e.comment}`)); // the rest of the line, re-split
    else if (e.op === "glob") out.push(e.pattern);
    else out.push(e.op);
  }
  return out;
}

export function argumentValues(dialect: Dialect, raw: string, names: string[], sessionId: string): ArgumentValues {
  return { dialect, raw, list: splitArguments(raw), names, sessionId };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function pattern(a: ArgumentValues): RegExp {
  // Longest names first, so `$issue-id` wins over `$issue`; never followed by a word character or `[`.
  const names = [...a.names].sort((x, y) => y.length - x.length).map(escapeRegExp);
  const named = names.length ? `|\\$(?:${names.join("|")})(?![\\w[])` : "";
  return a.dialect === "claude"
    ? new RegExp(`\\$\\{CLAUDE_SESSION_ID\\}|\\$ARGUMENTS\\[(?<index>\\d+)\\]${named}|\\$(?<short>\\d+)(?!\\w)|\\$ARGUMENTS`, "g")
    : new RegExp(`\\$ARGUMENTS(?![\\w[])${named}|\\$(?<short>[1-9])(?!\\d)`, "g");
}

export interface Substituted {
  text: string;
  /** Whether an argument placeholder occurred (else the arguments are appended, as Claude Code does). */
  used: boolean;
}

/**
 * Replace placeholders in `template`. In `shell` mode (the text of a `!` command) every value is
 * shell-quoted, so what the user typed reaches the command as literal words, never as shell syntax.
 */
export function substitute(template: string, a: ArgumentValues, mode: "text" | "shell"): Substituted {
  let used = false;
  const one = (v: string | undefined) => (mode === "shell" ? quote([v ?? ""]) : (v ?? ""));
  const text = template.replace(pattern(a), (...m: unknown[]) => {
    const match = m[0] as string;
    const { index, short } = m[m.length - 1] as { index?: string; short?: string };
    if (match === "${CLAUDE_SESSION_ID}") return a.sessionId;
    used = true;
    if (match === "$ARGUMENTS") return mode === "shell" ? quote(a.list) : a.raw;
    if (index !== undefined) return one(a.list[Number(index)]);
    if (short !== undefined) return one(a.list[Number(short) - (a.dialect === "agent" ? 1 : 0)]);
    return one(a.list[a.names.indexOf(match.slice(1))]);
  });
  return { text, used };
}
