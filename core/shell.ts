/**
 * What a shell command line runs, for permission rules: every simple command in it, found with a real
 * bash parser (tree-sitter's bash grammar, the wasm build VS Code ships) rather than by splitting on
 * punctuation. Pipes, lists, subshells, groups, `$(...)`, backticks and process substitutions are
 * walked; quotes are respected (`echo "a; b"` is one command); a redirection that writes a file is a
 * subject of its own (`> f`), since writing it is an effect the command alone does not show.
 *
 * Anything the parser cannot read with certainty (a syntax error, a substitution whose output becomes
 * part of another command's words) adds a subject no rule matches, so an allow rule can never cover it
 * and the call is asked about, while deny rules still see every inner command.
 */
import { createRequire } from "node:module";

/** A subject no pattern matches (a NUL byte never appears in a command the model sends). */
export const UNCERTAIN = "\u0000uncertain";

interface TsNode {
  type: string;
  text: string;
  hasError: boolean;
  namedChildren: TsNode[];
  childForFieldName(name: string): TsNode | null;
}
interface TsParser {
  parse(text: string): { rootNode: TsNode; delete(): void } | null;
}

let parser: Promise<TsParser> | undefined;

/** The parser, loaded once on first use (~12 ms): commands that never run a shell tool never pay for it. */
function bashParser(): Promise<TsParser> {
  parser ??= (async () => {
    const require = createRequire(import.meta.url);
    const ts = require("@vscode/tree-sitter-wasm") as {
      Parser: { init(): Promise<void>; new (): TsParser & { setLanguage(l: unknown): void } };
      Language: { load(path: string): Promise<unknown> };
    };
    await ts.Parser.init();
    const bash = await ts.Language.load(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
    const p = new ts.Parser();
    p.setLanguage(bash);
    return p;
  })().catch((err: unknown) => {
    parser = undefined;
    throw err;
  });
  return parser;
}

/** Node types that run a command of their own. */
const COMMANDS = new Set(["command", "declaration_command", "unset_command", "test_command"]);
/** Node types whose words are made at run time from a command's output. */
const SUBSTITUTIONS = new Set(["command_substitution", "process_substitution"]);

/**
 * The simple commands `command` runs, each as written (with its own assignments and redirections), in
 * order; `UNCERTAIN` among them when the line cannot be judged by its text alone.
 */
export async function shellCommands(command: string): Promise<string[]> {
  const text = command.trim();
  if (!text) return [UNCERTAIN];
  let tree: ReturnType<TsParser["parse"]>;
  try {
    tree = (await bashParser()).parse(text);
  } catch {
    return [text, UNCERTAIN];
  }
  if (!tree) return [text, UNCERTAIN];
  try {
    const out: string[] = [];
    let uncertain = tree.rootNode.hasError;
    const visit = (node: TsNode): void => {
      if (node.type === "file_redirect") {
        // Writing a file is an effect of its own: `npm test > ~/.bashrc` is not just `npm test`.
        const target = outputTarget(node.text);
        if (target) out.push(target);
      } else if (COMMANDS.has(node.type)) out.push(oneLine(node.text));
      if (SUBSTITUTIONS.has(node.type)) uncertain = true;
      // Whatever runs inside (a substitution's commands, a subshell's) is visited too.
      for (const child of node.namedChildren) visit(child);
    };
    visit(tree.rootNode);
    if (!out.length) uncertain = true;
    const unique = [...new Set(out.map((s) => s.trim()).filter(Boolean))];
    // A line bash would reject (an unbalanced quote): judge it by its whole text, plus what could be read.
    if (tree.rootNode.hasError) return [...new Set([text, ...unique]), UNCERTAIN];
    return uncertain ? [...unique, UNCERTAIN] : unique;
  } finally {
    tree.delete();
  }
}

/**
 * The subject of a redirection that writes a file (`> f`, `>> log`, `&> out`), or undefined for one that
 * does not (`< in`, `2>&1`, `> /dev/null`).
 */
function outputTarget(text: string): string | undefined {
  const m = /^(\d*|&)(>>|>\||>)(?!&)\s*(.+)$/s.exec(text.trim());
  if (!m) return undefined;
  const target = m[3].trim();
  if (target === "/dev/null") return undefined;
  return `${m[2] === ">>" ? ">>" : ">"} ${target}`;
}

/** A command's text on one line (a line continuation or a newline inside it becomes a space). */
function oneLine(text: string): string {
  return text.replace(/\\\n/g, " ").replace(/\n/g, " ");
}
