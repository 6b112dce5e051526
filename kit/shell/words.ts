/**
 * One shell word as bash reads it: quotes removed, escapes processed (`"rm"`, `r\m`, `'rm'`, `$'\x72m'`
 * are all `rm`), and whether its value is known from the text at all (a parameter or command
 * substitution, a glob, a brace expansion or `~user` makes it computed when the line runs).
 */
import { homedir } from "node:os";

export interface Word {
  /** The word as written in the line. */
  raw: string;
  /** Its value after quote removal (a leading `~` kept as written: see `homePath`); meaningful only when `literal`. */
  value: string;
  literal: boolean;
}

const ANSI_C: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };
/** What after a `$` starts an expansion (a lone `$` is a literal dollar sign). */
const EXPANSION_START = /[A-Za-z_{(@*#?$!0-9-]/;

export function decodeWord(raw: string): Word {
  const s = new Scanner(raw);
  s.run();
  return { raw, value: s.out, literal: s.literal };
}

/** A word written so that bash reads it back as `value`: bare when safe, else in single quotes. */
export function quoteWord(value: string): string {
  if (/^~?[A-Za-z0-9_@%+=:,./-]*$/.test(value) && value !== "" && !/^~[^/]/.test(value)) return value;
  if (value === "{}") return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A literal word's value as a path: a leading `~` is the home folder. */
export function homePath(value: string): string {
  return value === "~" || value.startsWith("~/") ? homedir() + value.slice(1) : value;
}

/** A word as rules see it: its quoted value when literal, else as written. */
export function shownWord(w: Word): string {
  return w.literal ? quoteWord(w.value) : w.raw.replace(/\\\n/g, "").replace(/\s+/g, " ");
}

class Scanner {
  out = "";
  literal = true;
  private i = 0;
  constructor(private readonly t: string) {}

  run(): void {
    const t = this.t;
    if (t.startsWith("~")) this.tilde();
    while (this.i < t.length) {
      const c = t[this.i];
      if (c === "\\") this.escape();
      else if (c === "'") this.single();
      else if (c === "$" && t[this.i + 1] === "'") this.ansiC();
      else if (c === "$" && t[this.i + 1] === '"') (this.i++, this.double());
      else if (c === '"') this.double();
      else if (c === "$" && EXPANSION_START.test(t[this.i + 1] ?? "")) this.computed();
      else if (c === "`" || c === "*" || c === "?" || ((c === "<" || c === ">") && t[this.i + 1] === "(")) this.computed();
      else if (c === "[" && t.indexOf("]", this.i + 1) > 0) this.computed();
      else if (c === "{" && isBraceExpansion(t, this.i)) this.computed();
      else (this.out += c), this.i++;
    }
  }

  private computed(): void {
    this.literal = false;
    this.i = this.t.length;
  }

  /** `~` and `~/…` are the home folder (kept as `~`: rules read better so); `~user`, `~+`, `~-` depend on the machine or the shell's state. */
  private tilde(): void {
    const end = this.t.indexOf("/");
    const head = end < 0 ? this.t : this.t.slice(0, end);
    if (head !== "~") return this.computed();
    this.out = "~";
    this.i = 1;
  }

  private escape(): void {
    const next = this.t[this.i + 1];
    if (next !== "\n" && next !== undefined) this.out += next;
    this.i += 2;
  }

  private single(): void {
    const end = this.t.indexOf("'", this.i + 1);
    if (end < 0) return this.computed();
    this.out += this.t.slice(this.i + 1, end);
    this.i = end + 1;
  }

  private double(): void {
    const t = this.t;
    for (this.i++; this.i < t.length; this.i++) {
      const c = t[this.i];
      if (c === '"') return void this.i++;
      if (c === "\\" && '$`"\\\n'.includes(t[this.i + 1] ?? "")) {
        if (t[this.i + 1] !== "\n") this.out += t[this.i + 1];
        this.i++;
      } else if (c === "`" || (c === "$" && EXPANSION_START.test(t[this.i + 1] ?? ""))) return this.computed();
      else this.out += c;
    }
    this.computed();
  }

  private ansiC(): void {
    const t = this.t;
    for (this.i += 2; this.i < t.length; this.i++) {
      const c = t[this.i];
      if (c === "'") return void this.i++;
      if (c !== "\\") {
        this.out += c;
        continue;
      }
      this.i += this.ansiEscape(t.slice(this.i + 1));
    }
    this.computed();
  }

  /** Decodes one `$'…'` escape (the text after the backslash); returns how many characters it used. */
  private ansiEscape(rest: string): number {
    const simple = ANSI_C[rest[0] ?? ""];
    if (simple !== undefined) return (this.out += simple), 1;
    const forms: [RegExp, number][] = [
      [/^x([0-9a-fA-F]{1,2})/, 16],
      [/^u([0-9a-fA-F]{1,4})/, 16],
      [/^U([0-9a-fA-F]{1,8})/, 16],
      [/^([0-7]{1,3})/, 8],
    ];
    for (const [re, base] of forms) {
      const m = re.exec(rest);
      if (!m) continue;
      const code = parseInt(m[1], base);
      this.out += code <= 0x10ffff ? String.fromCodePoint(code) : "";
      return m[0].length;
    }
    const ctrl = /^c(.)/.exec(rest);
    if (ctrl) return (this.out += String.fromCharCode(ctrl[1].charCodeAt(0) & 0x1f)), 2;
    this.out += `\\${rest[0] ?? ""}`;
    return 1;
  }
}

/** `{a,b}` or `{1..3}` unquoted: bash expands it into several words (quotes inside it are taken as part of it: erring towards computed). */
function isBraceExpansion(t: string, at: number): boolean {
  let depth = 0;
  for (let i = at; i < t.length; i++) {
    const c = t[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      const inner = t.slice(at + 1, i);
      return inner.includes(",") || inner.includes("..");
    }
  }
  return false;
}
