/**
 * What a parsed shell line runs, as permission subjects: each simple command as bash will read it
 * (quotes removed, one space between words), what every wrapper in it runs, what a nested shell's
 * literal text runs; and marks where the text cannot tell (see subject-marks.ts).
 */
import path from "node:path";
import { denyOnly, opaqueMark, UNCERTAIN } from "./subject-marks.js";
import { fieldChildren, type TsNode, type TsParser } from "./parser.js";
import { decodeWord, homePath, shownWord, type Word } from "./words.js";
import { findCommands, placeholder, SHELL_VALUE_OPTIONS, SHELLS, unwrap, WRAPPERS, xargsPlaceholders } from "./wrappers.js";

/** Script files a line runs (`. ./env.sh`, `bash build.sh`), read so their commands meet deny rules. */
export interface ScriptFiles {
  /** The folder the line runs in (absolute). */
  cwd: string;
  /** The text of a file, or undefined when it cannot be read (missing, too large, not text). */
  read(file: string): string | undefined;
}

const MAX_DEPTH = 4;
/** Variables that make a shell run a file before its commands. */
const RUNS_FILE = new Set(["BASH_ENV", "ENV"]);
/** Variables that change which program a command word names, or how words split. */
const CHANGES_LOOKUP = new Set(["PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "IFS", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND"]);
/** Commands that never write files themselves: after only these, a script file is still what was read. */
const NO_WRITES = new Set(["cd", "pushd", "popd", "echo", "printf", "true", "false", "test", "[", "pwd", "export", "set", "shopt", "type", "which", "hash", "unset", "sleep", "ls", "cat", "grep", "head", "tail", "wc", "date", "source", "."]);
const STATEMENTS = new Set(["unset_command", "test_command"]);
/** A `[[ … ]]` comparison bash evaluates as arithmetic. */
const ARITH_TEST = /\s-(?:eq|ne|lt|le|gt|ge)\s/;
/** Builtins that load or run code an option names (`enable -f lib.so`, `mapfile -C callback`). */
const BUILTIN_LOADERS: readonly [string, string][] = [
  ["enable", "-f"],
  ["mapfile", "-C"],
  ["readarray", "-C"],
];

export class LineJudge {
  readonly out: string[] = [];
  private readonly defined = new Set<string>();
  /** The folder relative script paths start from; null once a `cd` leads where the text cannot tell. */
  private dir: string | null;
  /** An earlier command may have written files (a script read now may not be what runs). */
  private wrote = false;
  /** Inside a script file's text: what is found there is for deny rules only. */
  private inFile = 0;
  private depth = 0;
  /** Bash evaluates something as arithmetic (`[[ $X -eq 0 ]]`, `$((X))`, `let`, `declare -i`). */
  private arith = false;
  /** A literal word holds command-substitution syntax (`'a[$(rm f)]'`): code, if bash evaluates it. */
  private hiddenCode = false;

  constructor(
    private readonly parser: TsParser,
    private readonly files: ScriptFiles | undefined,
  ) {
    this.dir = files?.cwd ?? null;
  }

  /** Judges a whole line (or a nested shell's, a script file's text). */
  line(text: string): void {
    const tree = this.parser.parse(text);
    if (!tree) return this.opaque("the line could not be parsed");
    try {
      if (tree.rootNode.hasError) {
        this.add(oneLine(text));
        this.opaque("the line does not parse as bash reads it (an unbalanced quote, a construct the parser does not know)");
      }
      this.visit(tree.rootNode, true);
    } finally {
      tree.delete();
    }
    // Arithmetic (and an array subscript) runs the `$(…)` a value holds: `X='a[$(rm f)]'; [[ $X -eq 0 ]]`.
    if (this.arith && this.hiddenCode) this.opaque("bash evaluates a value as arithmetic, and a quoted word of the line holds a command substitution it would run");
  }

  private visit(node: TsNode, top: boolean): void {
    switch (node.type) {
      case "file_redirect":
        return this.redirect(node);
      case "command":
        return this.command(node, undefined, top);
      case "redirected_statement":
        return this.redirected(node, top);
      case "function_definition":
        this.defined.add(node.childForFieldName("name")?.text ?? "");
        return this.children(node, false);
      case "declaration_command":
      case "variable_assignment":
        this.assignments(node);
        if (node.type === "declaration_command") this.add(oneLine(node.text));
        return this.children(node, false);
      case "command_substitution":
      case "process_substitution":
        this.out.push(UNCERTAIN);
        return this.children(node, false);
      case "arithmetic_expansion":
        this.arith = true;
        return this.children(node, false);
      default:
        if (STATEMENTS.has(node.type)) this.add(oneLine(node.text));
        if (node.type === "test_command" && ARITH_TEST.test(node.text)) this.arith = true;
        return this.children(node, top && (node.type === "program" || node.type === "list"));
    }
  }

  private children(node: TsNode, top: boolean): void {
    for (const c of node.namedChildren) this.visit(c, top);
  }

  /** `cmd <<EOF … EOF`, `cmd <<< text`, `cmd > f`: the input a shell would read, then the redirections. */
  private redirected(node: TsNode, top: boolean): void {
    const body = node.childForFieldName("body");
    const redirects = fieldChildren(node, "redirect");
    if (body?.type !== "command") return this.children(node, top);
    this.command(body, redirects.map(inputScript).find((w) => w !== undefined), top);
    for (const r of redirects) this.visit(r, false);
  }

  private redirect(node: TsNode): void {
    this.wrote = true;
    const m = /^(\d*|&)(>>|>\||>&|>)\s*(.+)$/s.exec(node.text.trim());
    // `>&2`, `2>&1`, `>&-` copy or close a descriptor; `>& file` (no number) writes the file, as `&>` does.
    if (!m || (m[2] === ">&" && /^(?:\d+-?|-)$/.test(m[3].trim()))) return this.children(node, false);
    const target = decodeWord(m[3].trim());
    if (!(target.literal && target.value === "/dev/null")) this.add(`${m[2] === ">>" ? ">>" : ">"} ${shownWord(target)}`);
    this.children(node, false);
  }

  private command(node: TsNode, stdin: Word | undefined, top: boolean): void {
    const assigns: Word[] = [];
    const words: Word[] = [];
    const after: TsNode[] = [];
    let last: TsNode | undefined;
    for (let i = 0; i < node.childCount; i++) {
      const c = node.child(i);
      if (!c?.isNamed) continue;
      const field = node.fieldNameForChild(i);
      if (c.type === "variable_assignment") assigns.push(assignmentWord(c));
      else if (field === "name" || field === "argument") {
        // bash joins the two halves of `r\<newline>m` into one word; the parser reads two.
        const joined = last && node.text.slice(last.endIndex - node.startIndex, c.startIndex - node.startIndex) === "\\\n";
        if (joined) words.push(decodeWord(words.pop()!.raw + c.text));
        else words.push(decodeWord(c.text));
        last = c;
      }
      else if (c.type === "herestring_redirect") stdin ??= inputScript(c);
      // Substitutions inside words, values and redirections run commands of their own.
      if (c.type === "variable_assignment") after.push(...c.namedChildren);
      else after.push(c);
    }
    this.simple(words, assigns, stdin, top);
    for (const c of after) this.visit(c, false);
  }

  /** One simple command, and whatever it runs in turn. */
  private simple(words: Word[], assigns: Word[], stdin: Word | undefined, top: boolean): void {
    this.checkAssignments(assigns.map((w) => w.value || w.raw));
    this.noteCode([...assigns, ...words]);
    const subject = [...assigns, ...words].map(shownWord).join(" ");
    if (!words.length) return void (subject && this.add(subject));
    const [cmd, ...args] = words;
    const name = path.posix.basename(cmd.value);
    // A wrapper that changes nothing a rule is about (`timeout 5 npm test`): allow rules judge what it runs.
    const spec = cmd.literal ? WRAPPERS[name] : undefined;
    if (spec?.transparent && unwrap(name, spec, args).kind === "command") this.out.push(denyOnly(subject));
    else this.add(subject);
    if (!cmd.literal) return this.opaque(`the command word \`${cmd.raw}\` is computed when it runs`);
    this.strictForms(cmd, args, assigns.length > 0);
    if (this.defined.has(cmd.value)) return this.opaque(`\`${cmd.value}\` is a function or alias the line defines`);
    if (name === "alias") this.defineAliases(args);
    if (name === "cd" || name === "pushd") this.changeDir(args, top);
    this.runs(name, cmd, args, stdin);
    if (!NO_WRITES.has(name)) this.wrote = true;
  }

  /** What the command `name` runs besides itself: a wrapped command, a shell's text, a script file. */
  private runs(name: string, cmd: Word, args: Word[], stdin: Word | undefined): void {
    const spec = WRAPPERS[name];
    if (spec) {
      const marks = name === "xargs" ? xargsPlaceholders(args) : [];
      const u = unwrap(name, spec, args);
      if (u.kind === "command") this.simple(u.words.map((w) => placeholder(w, marks)), u.assignments, stdin, false);
      else if (u.kind === "script") this.text(u.script, `\`${name}\``);
      else if (u.kind === "opaque") this.opaque(u.reason);
      return;
    }
    if (name === "find") for (const inner of findCommands(args)) this.simple(inner, [], undefined, false);
    else if (SHELLS.has(name)) this.shell(name, args, stdin);
    else if (name === "eval") this.text(joined(args), "`eval`");
    else if (name === "trap") this.trap(args);
    else if (name === "let") this.arith = true;
    else if (BUILTIN_LOADERS.some(([n, o]) => n === name && args.some((a) => !a.literal || a.value.startsWith(o)))) this.opaque(`\`${name}\` with that option runs code the line does not show`);
    else if (name === "hash" && args.some((a) => !a.literal || a.value.startsWith("-p"))) this.out.push(UNCERTAIN);
    else if (name === "source" || name === ".") this.scriptFile(args[0], name, false);
    else if (cmd.value.includes("/")) this.scriptFile(cmd, name, true);
  }

  /** `trap 'cmd' EXIT`: the command runs later, in this shell. */
  private trap(args: Word[]): void {
    const [first] = args;
    if (!first || (first.literal && (first.value === "-" || first.value.startsWith("-")))) return;
    if (first.literal && first.value === "") return;
    this.text(first, "`trap`");
  }

  /** `bash -c TEXT`, `bash FILE`, or `bash` reading its input (a literal here-document is read too). */
  private shell(name: string, args: Word[], stdin: Word | undefined): void {
    let dashC = false;
    for (let i = 0; i < args.length; i++) {
      const w = args[i];
      if (!w.literal) return this.opaque(`\`${w.raw}\` given to \`${name}\` is computed when it runs`);
      const v = w.value;
      if (v === "--rcfile" || v === "--init-file") return this.opaque(`\`${name} ${v}\` runs a file first`);
      if (SHELL_VALUE_OPTIONS.has(v)) i++;
      else if (v === "--" || v === "-") continue;
      else if (/^[-+][A-Za-z]+$/.test(v)) dashC ||= v.startsWith("-") && v.includes("c");
      else if (v.startsWith("--")) continue;
      else return dashC ? this.text(w, `\`${name} -c\``) : this.scriptFile(w, name, false);
    }
    if (dashC) return this.opaque(`\`${name} -c\` has no command line to judge`);
    if (stdin) return this.text(stdin, `\`${name}\`'s input`);
    this.opaque(`\`${name}\` reads the commands it runs from its input`);
  }

  /** A command line given as text (`bash -c '…'`, `eval …`, `flock -c '…'`), judged as a line of its own. */
  private text(w: Word | undefined, what: string): void {
    if (!w || !w.literal) return this.opaque(`the command line given to ${what} is computed when it runs`);
    if (this.depth >= MAX_DEPTH) return this.opaque(`${what} nests shells more than ${MAX_DEPTH} deep`);
    const dir = this.dir;
    this.depth++;
    try {
      this.line(w.value);
    } finally {
      this.depth--;
      this.dir = dir;
    }
  }

  /**
   * A script file the line runs: its commands meet deny rules (allow rules judge the line as written).
   * `direct` (`./build.sh`): a program, read when it is a readable shell script; otherwise the file must be
   * read, and be what runs: nothing earlier in the line may have written it.
   */
  private scriptFile(w: Word | undefined, name: string, direct: boolean): void {
    const unseen = (why: string) => (direct ? undefined : this.opaque(`the commands in the file \`${w?.raw ?? ""}\` that \`${name}\` runs ${why}`));
    if (!w) return void unseen("are not named");
    if (!w.literal || this.dir === null || !this.files) return void unseen("cannot be read before it runs");
    if (this.wrote && !direct) return void unseen("may be written by an earlier command of the line");
    const text = this.files.read(path.resolve(this.dir, homePath(w.value)));
    if (text === undefined || (direct && !isShellScript(text))) return void unseen("cannot be read");
    if (this.depth >= MAX_DEPTH) return void this.opaque(`script files run script files more than ${MAX_DEPTH} deep`);
    const dir = this.dir;
    this.depth++;
    this.inFile++;
    try {
      this.line(text);
    } finally {
      this.inFile--;
      this.depth--;
      this.dir = dir;
    }
  }

  /** Deny rules also see the command without its `VAR=` prefix, and by its name when spelt as a path. */
  private strictForms(cmd: Word, args: Word[], assigned: boolean): void {
    const rest = args.map(shownWord);
    if (assigned) this.out.push(denyOnly([shownWord(cmd), ...rest].join(" ")));
    if (cmd.value.includes("/") && !cmd.value.endsWith("/")) this.out.push(denyOnly([path.posix.basename(cmd.value), ...rest].join(" ")));
  }

  private checkAssignments(names: string[]): void {
    for (const n of names.map((a) => a.replace(/\+?=.*$/s, ""))) {
      if (RUNS_FILE.has(n)) this.opaque(`\`${n}\` makes a shell run a file before its commands`);
      else if (CHANGES_LOOKUP.has(n) || n.startsWith("BASH_FUNC_")) this.out.push(UNCERTAIN);
    }
  }

  /** Literal words that hold `$(…)` or backticks; an array subscript holding one runs it wherever bash reads the name. */
  private noteCode(words: Word[]): void {
    for (const w of words) {
      if (!w.literal || !/\$\(|`/.test(w.value)) continue;
      this.hiddenCode = true;
      if (/\[[^\]]*(?:\$\(|`)/.test(w.value)) this.opaque(`\`${w.raw}\` names an array element whose subscript runs a command when bash reads it`);
    }
  }

  /** `export A=1`, `declare -x PATH=…`, `A=1` on its own. */
  private assignments(node: TsNode): void {
    const nodes = node.type === "variable_assignment" ? [node] : node.namedChildren.filter((c) => c.type === "variable_assignment");
    this.noteCode(nodes.map(assignmentWord));
    if (node.type === "declaration_command") this.noteCode(node.namedChildren.filter((c) => c.type !== "variable_assignment").map((c) => decodeWord(c.text)));
    if (node.type === "declaration_command" && /^\s*(?:declare|typeset|local)\s+-\w*i/.test(node.text)) this.arith = true;
    this.checkAssignments(nodes.map((c) => c.childForFieldName("name")?.text ?? ""));
    if (node.type === "declaration_command") {
      // `export BASH_ENV` (a name alone) exports what an earlier assignment set.
      this.checkAssignments(node.namedChildren.filter((c) => c.type === "variable_name" || c.type === "word").map((c) => c.text));
    }
  }

  private defineAliases(args: Word[]): void {
    for (const a of args) this.defined.add(a.value.replace(/=.*$/s, ""));
  }

  private changeDir(args: Word[], top: boolean): void {
    const target = args.find((a) => !(a.literal && a.value.startsWith("-") && a.value !== "-"));
    if (!top || this.dir === null || !target || !target.literal || target.value === "-") this.dir = null;
    else this.dir = path.resolve(this.dir, homePath(target.value));
  }

  private add(subject: string): void {
    this.out.push(this.inFile ? denyOnly(subject) : subject);
  }

  private opaque(reason: string): void {
    this.out.push(opaqueMark(reason));
  }
}

/** The literal script a here-document or here-string gives a command as its input, if any. */
function inputScript(node: TsNode): Word | undefined {
  if (node.type === "herestring_redirect") {
    const arg = node.namedChildren[0];
    return arg ? decodeWord(arg.text) : undefined;
  }
  if (node.type !== "heredoc_redirect") return undefined;
  const start = node.namedChildren.find((c) => c.type === "heredoc_start")?.text ?? "";
  const body = node.namedChildren.find((c) => c.type === "heredoc_body");
  const text = body?.text ?? "";
  // An unquoted delimiter expands `$…` and backticks in the body.
  const literal = /['"\\]/.test(start) || !/[`$]/.test(text);
  return { raw: text, value: text, literal };
}

function assignmentWord(node: TsNode): Word {
  const name = node.childForFieldName("name")?.text ?? "";
  const eq = node.text.indexOf("=");
  const op = node.text[eq - 1] === "+" ? "+=" : "=";
  const value = decodeWord(node.text.slice(eq + 1));
  return { raw: node.text, value: `${name}${op}${value.value}`, literal: value.literal };
}

/** The words of `eval a b` as the line it runs. */
function joined(words: Word[]): Word | undefined {
  if (!words.length) return undefined;
  const value = words.map((w) => w.value).join(" ");
  return { raw: words.map((w) => w.raw).join(" "), value, literal: words.every((w) => w.literal) };
}

/** A text file a shell runs: a `#!` line naming a shell, or none at all. */
function isShellScript(text: string): boolean {
  if (text.includes("\u0000")) return false;
  if (!text.startsWith("#!")) return true;
  const first = text.slice(0, text.indexOf("\n") >>> 0);
  return /^#!\s*\S*\b(?:env\s+)?(?:ba|da|z|k|mk)?sh\b/.test(first);
}

function oneLine(text: string): string {
  return text.replace(/\\\n/g, " ").replace(/\s*\n\s*/g, " ").trim();
}
