/**
 * A pseudo-terminal session (util-linux `script`) running the built CLI; `waitFor` reads the screen
 * output forward from the last match. Needs `npm run build` first.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import xterm from "@xterm/headless";
import { stripAnsi } from "../../cli/render/_style.js";
import { CLI } from "./run-helpers.js";

export class PtySession {
  private raw = "";
  private cursor = 0;
  private waiters: (() => void)[] = [];
  /** Where in the output each resize happened (a terminal resizes itself, then tells the program). */
  private resizes: { at: number; cols: number; rows: number }[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  private readonly cols: number;

  constructor(cwd: string, env: NodeJS.ProcessEnv, args: string[] = [], options: { color?: boolean; term?: string; cols?: number } = {}) {
    this.cols = options.cols ?? 120;
    const argv = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    // A pseudo-terminal stands for a person at the keyboard: CI=true (as .ci/run sets it) would make the CLI headless.
    // It is read as xterm.js reads it (see `terminal`): no variable of the terminal the tests run in.
    const { CI: _ci, TERM_PROGRAM: _tp, VTE_VERSION: _vte, KITTY_WINDOW_ID: _k, WT_SESSION: _wt, ALACRITTY_WINDOW_ID: _a, WEZTERM_PANE: _wz, TMUX: _tm, STY: _sty, ...rest } = env;
    this.child = spawn("script", ["-qefc", `stty cols ${this.cols} rows 40; exec "${process.execPath}" "${CLI}" ${argv}`, "/dev/null"], {
      cwd,
      env: { ...rest, ...(options.color ? { FORCE_COLOR: "1" } : { NO_COLOR: "1" }), TERM: options.term ?? "xterm" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      this.raw += d;
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((resolve) => this.child.on("close", resolve));
  }

  /** Everything the terminal got, escapes included. */
  get output(): string {
    return this.raw;
  }

  get text(): string {
    return stripAnsi(this.raw).replace(/\r/g, "");
  }

  /**
   * The screen as a terminal would leave it (enough of one for these tests: \r, \n, cursor up, erase
   * to the end of the line or screen), so text that was drawn and then erased is gone.
   */
  get screen(): string {
    const lines: string[] = [""];
    let row = 0;
    let col = 0;
    // eslint-disable-next-line no-control-regex
    for (const m of this.raw.matchAll(/\x1b\[([0-9;?]*)([A-Za-z])|\r|\n|[^\x1b\r\n]+/g)) {
      const t = m[0];
      if (t === "\r") col = 0;
      else if (t === "\n") {
        row++;
        if (lines.length <= row) lines.push("");
      } else if (m[2] === "A") row = Math.max(0, row - Number(m[1] || 1));
      else if (m[2] === "G") col = Math.max(0, Number(m[1] || 1) - 1);
      else if (m[2] === "J") {
        lines[row] = [...lines[row]].slice(0, col).join("");
        lines.length = row + 1;
      } else if (m[2] === "K") lines[row] = [...lines[row]].slice(0, col).join("");
      else if (!m[2]) {
        const chars = [...lines[row]];
        for (const c of t) chars[col++] = c;
        lines[row] = Array.from(chars, (c) => c ?? " ").join("");
      }
    }
    return lines.join("\n");
  }

  /** Resize the terminal as a user drags its window: the program gets SIGWINCH. */
  resize(cols: number, rows = 40): void {
    const pid = child(this.child.pid!);
    execFileSync("stty", ["-F", readlinkSync(`/proc/${pid}/fd/0`), "cols", String(cols), "rows", String(rows)]);
    this.resizes.push({ at: this.raw.length, cols, rows });
  }

  /**
   * The screen and its scrollback as a real terminal emulator (xterm.js, which reflows soft-wrapped rows
   * on a resize as most terminals do) shows them after all the output so far, resizes replayed where they
   * happened: `rows` one string per row (trailing blanks trimmed), `lines` with soft-wrapped rows joined
   * (the text as written); the empty rows at the bottom are dropped.
   */
  async terminal(): Promise<{ rows: string[]; lines: string[]; cols: number }> {
    const term = new xterm.Terminal({ cols: this.cols, rows: 40, scrollback: 10_000, allowProposedApi: true });
    const write = (s: string) => new Promise<void>((resolve) => term.write(s, resolve));
    let from = 0;
    for (const r of this.resizes) {
      await write(this.raw.slice(from, r.at));
      term.resize(r.cols, r.rows);
      from = r.at;
    }
    await write(this.raw.slice(from));
    const b = term.buffer.active;
    const rows: string[] = [];
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) {
      const row = b.getLine(i)!;
      const wrapsOn = b.getLine(i + 1)?.isWrapped ?? false;
      rows.push(row.translateToString(true));
      const text = row.translateToString(!wrapsOn);
      if (row.isWrapped && lines.length) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    const cols = term.cols;
    term.dispose();
    while (rows.length && rows[rows.length - 1] === "") rows.pop();
    while (lines.length && lines[lines.length - 1] === "") lines.pop();
    return { rows, lines, cols };
  }

  /** Wait until `needle` appears after the previous match; the next wait starts after it. */
  async waitFor(needle: string): Promise<void> {
    for (;;) {
      const at = this.text.indexOf(needle, this.cursor);
      if (at >= 0) {
        this.cursor = at + needle.length;
        return;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Wait for the input prompt (readline draws it as "> " at the start of a line). */
  prompt(): Promise<void> {
    return this.waitFor("\n> ");
  }

  type(keys: string): void {
    this.child.stdin!.write(keys);
  }

  kill(): void {
    this.child.kill("SIGKILL");
  }
}

/** The one child of `pid` (script's shell, which became the CLI by exec). */
function child(pid: number): number {
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
  if (kids.length !== 1 || !kids[0]) throw new Error(`expected one child of ${pid}, got "${kids.join(" ")}"`);
  return Number(kids[0]);
}
