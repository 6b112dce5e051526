/**
 * What a shell command line runs, for permission rules, found with a real bash parser (tree-sitter's
 * bash grammar) rather than by splitting on punctuation: every simple command (pipes, lists, subshells,
 * groups, `$(...)`, backticks and process substitutions walked), each as bash reads it after quote removal
 * (`"rm" f`, `r\m f`, `$'\x72m' f` are `rm f`), what each wrapper runs (`env -i rm`, `timeout 5 rm`,
 * `xargs rm`, `find -exec rm`, kit/shell/wrappers.ts), what a nested shell's literal text runs
 * (`bash -c '…'`, `eval`, a here-document into a shell), what a script file it sources or runs holds
 * (for deny rules), and a redirection that writes a file as a subject of its own (`> f`).
 *
 * Where the text cannot tell what runs (a computed command word, a nested shell with computed text, a
 * line that does not parse) the subjects carry marks (kit/shell/subject-marks.ts): no allow rule covers
 * them, and a deny rule for the tool denies them.
 */
import { isMark, UNCERTAIN } from "./subject-marks.js";
import { bashParser } from "./parser.js";
import { LineJudge, type ScriptFiles } from "./judge.js";

export { UNCERTAIN };
export type { ScriptFiles };

export interface ShellSubjectOptions {
  /** Lets the commands of script files the line runs (`. ./env.sh`, `bash build.sh`) be read and judged. */
  files?: ScriptFiles;
}

/**
 * The subjects of a command line, in order: what it runs, then the marks (deny-only forms, uncertainty).
 */
export async function shellCommands(command: string, options: ShellSubjectOptions = {}): Promise<string[]> {
  const text = command.trim();
  if (!text) return [UNCERTAIN];
  let judge: LineJudge;
  try {
    judge = new LineJudge(await bashParser(), options.files);
  } catch {
    return [text, UNCERTAIN];
  }
  judge.line(text);
  const unique = [...new Set(judge.out.map((s) => (isMark(s) ? s : s.trim())).filter(Boolean))];
  const plain = unique.filter((s) => !isMark(s));
  if (!plain.length && !unique.includes(UNCERTAIN)) unique.push(UNCERTAIN);
  return [...plain, ...unique.filter(isMark)];
}
