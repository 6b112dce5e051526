/**
 * Which command lines only read, for run_command's `readOnly`: judged from the gate's permission subjects
 * (one per simple command of the line; marks for what the text cannot tell, redirections as their own
 * subject), so `git status`, `git diff HEAD | head -20` or `git log --oneline -10` run without a question
 * in default and plan modes, as Claude Code runs its read-only commands (the context lines of Markdown
 * commands such as Anthropic's /commit are made of them). Deliberately narrow: git's read-only
 * subcommands without any option that writes a file, runs a program or reads outside the repository, and
 * filters that read only their input. Any mark, redirection, assignment, substitution or glob: not read-only.
 * The line still runs in the sandbox.
 */
import { parse } from "shell-quote";

/** git subcommands that only read the repository; per subcommand the arguments it may have (undefined: any, minus FORBIDDEN). */
const GIT: Record<string, ((args: string[]) => boolean) | undefined> = {
  status: undefined,
  diff: undefined,
  log: undefined,
  show: undefined,
  shortlog: undefined,
  blame: undefined,
  describe: undefined,
  "rev-parse": undefined,
  "ls-files": undefined,
  "ls-tree": undefined,
  "cat-file": undefined,
  branch: (args) => args.every((a) => BRANCH_LISTING.has(a)),
  tag: (args) => args.length === 0 || args[0] === "-l" || args[0] === "--list",
  remote: (args) => args.every((a) => a === "-v" || a === "--verbose"),
};
const BRANCH_LISTING = new Set(["--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l", "--no-color"]);
/** Options that write a file, run a program, or read outside the repository. */
const FORBIDDEN = /^(--output|--no-index|--ext-diff|--textconv|--exec|--upload-pack|--receive-pack|--open-files-in-pager|-O)/;
/** Filters that read only their standard input when given no file (their flags checked apart). */
const FILTERS = new Set(["head", "tail", "wc", "sort", "uniq", "cut", "tr", "cat", "grep"]);
/** Read-only commands that take no arguments here. */
const BARE = new Set(["pwd", "true"]);

export function isReadOnlyLine(subjects: readonly string[]): boolean {
  return subjects.length > 0 && subjects.every(readOnlySubject);
}

function readOnlySubject(subject: string): boolean {
  if (subject.startsWith("\u0000")) return false;
  let tokens: ReturnType<typeof parse>;
  try {
    tokens = parse(subject, (name) => `$${name}`);
  } catch {
    return false;
  }
  // Anything but plain words (an operator, a glob, a redirection) or a word with $ or ` in it: not judged here.
  if (!tokens.length || tokens.some((t) => typeof t !== "string" || /[$`]/.test(t))) return false;
  const [cmd, ...args] = tokens as string[];
  if (cmd.includes("=") || cmd.includes("/")) return false;
  if (BARE.has(cmd)) return args.length === 0;
  if (FILTERS.has(cmd)) return filterArgs(cmd, args);
  if (cmd === "git") return gitArgs(args);
  return false;
}

/** A filter with flags only (grep: one pattern too): it reads its input, no file. */
function filterArgs(cmd: string, args: string[]): boolean {
  const words = args.filter((a) => !a.startsWith("-"));
  const flagsOk = args.every((a) => !a.startsWith("-") || /^-[A-Za-z0-9]+$|^--[a-z-]+(=[^/]*)?$/.test(a));
  if (cmd === "grep") return flagsOk && words.length <= 1 && !args.some((a) => /^-(f|r|R|-file|-recursive)/.test(a));
  return flagsOk && words.length === 0 && !(cmd === "sort" && args.some((a) => /^(-o|--output)/.test(a)));
}

function gitArgs(args: string[]): boolean {
  let i = 0;
  // Global options that change nothing but the pager.
  while (args[i] === "--no-pager" || args[i] === "-P") i++;
  const sub = args[i];
  if (!sub || !Object.hasOwn(GIT, sub)) return false;
  const rest = args.slice(i + 1);
  if (rest.some((a) => FORBIDDEN.test(a))) return false;
  // A path outside the repository (absolute, ~, ..) is refused by git for most subcommands; never judged here.
  if (rest.some((a) => a.startsWith("/") || a.startsWith("~") || a.split("/").includes(".."))) return false;
  const check = GIT[sub];
  return check ? check(rest) : true;
}
