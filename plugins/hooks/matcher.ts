/**
 * Matchers as Claude Code reads them: `""`, `"*"` or none match everything; a value of only letters,
 * digits, `_`, `-`, spaces, `,` and `|` is a list of exact names (`Edit|Write`, `Edit, Write`);
 * anything else is a JavaScript regular expression tested unanchored (`mcp__memory__.*`, `^Notebook`).
 * A call matches when any of its names does: Claude Code's (`Bash`) or this host's (`run_command`).
 */
export interface Matcher {
  test(names: readonly string[]): boolean;
  /** Why it can never match (an invalid regular expression). */
  problem?: string;
}

export function compileMatcher(matcher: string | undefined): Matcher {
  const m = matcher?.trim() ?? "";
  if (m === "" || m === "*") return { test: () => true };
  if (/^[A-Za-z0-9_\- ,|]+$/.test(m)) {
    const exact = new Set(m.split(/[|,]/).map((s) => s.trim()).filter(Boolean));
    return { test: (names) => names.some((n) => exact.has(n)) };
  }
  let re: RegExp;
  try {
    re = new RegExp(m);
  } catch (err) {
    return { test: () => false, problem: `not a valid regular expression (${(err as Error).message})` };
  }
  return { test: (names) => names.some((n) => re.test(n)) };
}
