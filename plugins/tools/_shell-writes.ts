/**
 * The files a shell command line writes, as far as its text tells, for the gate's protected-path check
 * (`ToolDefinition.writes` of run_command): every redirection that writes a file (`>`, `>>`, `2>`, `&>`,
 * `>|`), the files of `tee`, the destination of `cp`, `mv`, `ln` and `install` (for `mv` also what it
 * moves away, for a hard `ln` what it links), `dd of=`, what `rm`, `rmdir`, `unlink`, `truncate` and `shred` change, `git config`
 * (the repository's `.git/config`), wherever the shell parser finds the command: behind a wrapper
 * (`sudo`, `env`, `timeout`, `xargs`, …), inside `bash -c '…'` and `eval`, in a script file the line runs
 * (kit/shell/index.ts gives each as a subject of its own). Relative paths are taken from the folder the command runs in and from every folder a `cd` or
 * `pushd` in the line may lead to. A target the shell computes when it runs (a variable other than
 * `$HOME` and `$PWD`, a glob, a substitution) is marked uncertain.
 *
 * Not seen: what programs do inside (`python -c`, a script, `sed -i`, `git` writing its own files on
 * other subcommands). Bounding those is the OS sandbox's part, not the parser's.
 */
import { homedir } from "node:os";
import path from "node:path";
import { parse } from "shell-quote";
import { type FileWrite } from "../../core/index.js";
import { denySubjects, shellSubjects, type ScriptFiles } from "../../kit/index.js";

/** A word of a command; undefined when the shell computes it when it runs. */
type Word = string | undefined;
/** Folders relative paths may be taken from; null: one no text tells (`cd -`, `cd "$X"`). */
type Dirs = (string | null)[];

const MARK = "\u0001";
const MAX_DIRS = 8;
const REMOVERS = new Set(["rm", "rmdir", "unlink", "truncate", "shred"]);
const COPIERS = new Set(["cp", "mv", "ln", "install"]);

/** What `command`, run in `cwd` (relative to the project root), writes. */
export async function shellWrites(command: string, cwd: string, files?: ScriptFiles): Promise<FileWrite[]> {
  // Every form the parser found, the commands behind wrappers and in script files included.
  const subjects = denySubjects(await shellSubjects(command, { files }));
  const dirs = cdDirs(subjects, [cwd]);
  const out: FileWrite[] = [];
  for (const s of subjects) {
    if (/^>>? /.test(s)) out.push(...placed(redirectTarget(s), dirs, s, false, s.replace(/^>>? /, "")));
    else out.push(...commandWrites(words(s), dirs, s));
  }
  return out;
}

/** The words of a simple command, quotes removed; redirections in it (`>out cmd`) left out. */
function words(text: string): Word[] {
  const home = homedir();
  const entries = parse(text.replace(/\\\n/g, ""), (key: string) => (key === "HOME" ? home : key === "PWD" ? "." : `${MARK}${key}`));
  const out: Word[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (typeof e === "string") out.push(e.includes(MARK) || e.includes("`") ? undefined : e);
    else if ("op" in e && e.op === "glob") out.push(undefined);
    else if ("op" in e && /[<>]/.test(e.op)) i++;
  }
  return out;
}

/** The file a redirection subject (`> f`, `>> f`) writes; undefined when computed when it runs. */
function redirectTarget(subject: string): Word {
  const text = subject.replace(/^>>? /, "");
  if (/\$\(|`|<\(|>\(/.test(text)) return undefined;
  const w = words(text);
  return w.length ? w[0] : undefined;
}

/** `word` taken from each of `dirs` (`~` as the home folder, and as spelt: it may have been quoted). */
function placed(word: Word, dirs: Dirs, subject: string, tree?: boolean, spelt?: string): FileWrite[] {
  if (word === undefined || (word.startsWith("~") && word !== "~" && !word.startsWith("~/"))) return [{ path: word ?? spelt ?? "(computed)", subject, uncertain: true }];
  const paths = word === "~" || word.startsWith("~/") ? [homedir() + word.slice(1), word] : [word];
  const at = (p: string, d: string | null): FileWrite => (d === null ? { path: p, subject, uncertain: true } : { path: p, cwd: d, subject, ...(tree ? { tree } : {}) });
  return paths.flatMap((p) => (path.isAbsolute(p) ? [{ path: p, subject, ...(tree ? { tree } : {}) }] : dirs.map((d) => at(p, d))));
}

/** Every folder the line's `cd`s and `pushd`s may lead to, from each start folder (bounded). */
function cdDirs(subjects: string[], start: Dirs): Dirs {
  let dirs = [...start];
  for (const s of subjects) {
    const { name, args } = program(words(s));
    if (name !== "cd" && name !== "pushd") continue;
    const rest = args.filter((a) => a === undefined || !/^-[LPe@]*$/.test(a) || a === "-");
    const to: string | null = rest.length === 0 ? homedir() : rest[0] === undefined || rest[0] === "-" || rest[0].startsWith("~") ? null : rest[0];
    const next = dirs.map((d) => (to === null || d === null ? null : path.isAbsolute(to) || d === "." ? to : `${d}/${to}`));
    dirs = [...new Set([...dirs, ...next])];
  }
  return dirs.length > MAX_DIRS ? [...dirs.slice(0, MAX_DIRS - 1), null] : dirs;
}

/** The program a command runs (past `VAR=x`) and its arguments; wrappers are subjects of their own. */
function program(ws: Word[]): { name: Word; args: Word[] } {
  const i = ws.findIndex((w) => w === undefined || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  if (i < 0 || ws[i] === undefined) return { name: undefined, args: [] };
  return { name: path.basename(ws[i]!), args: ws.slice(i + 1) };
}

/** Arguments that are not options (everything after `--`). */
function operands(args: Word[]): Word[] {
  const end = args.indexOf("--");
  const before = (end < 0 ? args : args.slice(0, end)).filter((a) => a === undefined || !a.startsWith("-"));
  return end < 0 ? before : [...before, ...args.slice(end + 1)];
}

function commandWrites(ws: Word[], dirs: Dirs, subject: string): FileWrite[] {
  const { name, args } = program(ws);
  const at = (list: Word[], tree?: boolean) => list.flatMap((w) => placed(w, dirs, subject, tree));
  if (name === "tee") return at(operands(args));
  if (name === "dd") return at(args.filter((a) => a === undefined || a.startsWith("of=")).map((a) => a?.slice(3)));
  if (name !== undefined && REMOVERS.has(name)) return at(operands(args), true);
  if (name !== undefined && COPIERS.has(name)) return at(copyTargets(name, args)).concat(name === "mv" ? at(sources(args), true) : hardLink(name, args) ? at(sources(args)) : []);
  if (name === "git") return at(gitConfigFile(args));
  return [];
}

/** The destination of `cp`/`mv`/`ln`/`install` (`-t dir` or the last operand), and that folder joined with each source's name. */
function copyTargets(name: string, args: Word[]): Word[] {
  const t = args.findIndex((a) => a === "-t" || a?.startsWith("--target-directory="));
  const target = t < 0 ? undefined : args[t] === "-t" ? args[t + 1] : args[t]!.slice("--target-directory=".length);
  const files = operands(t < 0 ? args : args.filter((_, i) => i !== t && !(args[t] === "-t" && i === t + 1)));
  const dest = t < 0 ? files.pop() : target;
  if (name === "install" && args.includes("-d")) return [...files, dest];
  const into = files.map((f) => (dest === undefined || f === undefined ? undefined : `${dest}/${path.basename(f)}`));
  return [dest, ...into];
}

/** A hard `ln` gives its sources a second name, which a later write could go through. */
function hardLink(name: string, args: Word[]): boolean {
  return name === "ln" && !args.some((a) => a === "--symbolic" || (a !== undefined && /^-[A-Za-z]*s/.test(a)));
}

/** What `mv` moves away (and a hard `ln` links): every operand but the destination. */
function sources(args: Word[]): Word[] {
  if (args.some((a) => a === "-t" || a?.startsWith("--target-directory="))) return operands(args.filter((a, i) => a !== "-t" && args[i - 1] !== "-t"));
  return operands(args).slice(0, -1);
}

const CONFIG_READS = new Set(["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list"]);
const CONFIG_WRITES = new Set(["--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"]);

/** The file `git … config …` writes (`.git/config` of the repository, `--file f`), or none for a read. */
function gitConfigFile(args: Word[]): Word[] {
  let dir: Word = ".";
  let gitDir: Word | null = null;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "-C") dir = args[i + 1] === undefined || dir === undefined ? undefined : path.isAbsolute(args[i + 1]!) ? args[i + 1] : `${dir}/${args[i + 1]}`;
    else if (a === "--git-dir") gitDir = args[i + 1];
    else if (a?.startsWith("--git-dir=")) gitDir = a.slice("--git-dir=".length);
    if (a === "-C" || a === "-c" || a === "--git-dir") i++;
    else if (a === undefined || !a.startsWith("-")) break;
  }
  if (args[i] !== "config") return [];
  const rest = args.slice(i + 1);
  const f = rest.findIndex((a) => a === "-f" || a === "--file" || a?.startsWith("--file="));
  if (f >= 0) return [rest[f]!.startsWith("--file=") ? rest[f]!.slice("--file=".length) : rest[f + 1]];
  if (rest.includes("--global") || rest.includes("--system") || configRead(rest)) return [];
  if (gitDir !== null) return [gitDir === undefined ? undefined : `${gitDir}/config`];
  return [dir === undefined ? undefined : `${dir}/.git/config`];
}

function configRead(rest: Word[]): boolean {
  const options = rest.filter((a): a is string => a !== undefined && a.startsWith("-"));
  const plain = rest.filter((a) => a === undefined || !a.startsWith("-"));
  if (options.some((o) => CONFIG_READS.has(o.split("=")[0]))) return true;
  if (plain[0] === "get" || plain[0] === "list") return true;
  if (options.some((o) => CONFIG_WRITES.has(o))) return false;
  return plain.length <= 1 && !["set", "unset", "edit", "rename-section", "remove-section"].includes(plain[0] ?? "");
}
