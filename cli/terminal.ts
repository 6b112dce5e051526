/**
 * The interactive session's terminal, on node:readline: history (kept in `.agent/history`), `\` + Enter
 * for a new line, bracketed paste (a multi-line paste is one input, shown as `[Pasted text #1 +3 lines]`
 * until sent), Tab completion (given by the session), and while a run goes: no echo (keys typed then
 * never garble the spinner line), Ctrl-C (or Esc) as a key that cancels the run, and the other keys kept to
 * pre-fill the next prompt, unless a permission question comes first (then they are dropped, so an
 * eager "y" + Enter cannot answer a question nobody has seen).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../kit/index.js";
import { createInterface, type Completer, type Interface, type Key } from "node:readline";
import { isAnswerKey, splitQuestion } from "./render/permission-prompt.js";
import { movesCursor } from "./render/_style.js";
import { cursorLineReflows } from "./render/live-rows.js";

const HISTORY_SIZE = 500;
const PROMPT = "> ";
const CONTINUATION = "… ";
const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

type TtyWrite = (s: string | undefined, key: Key | undefined) => void;
type Mode = "input" | "running" | "asking";

export class Terminal {
  private rl: Interface | undefined;
  private pending: ((line: string | null) => void) | undefined;
  private mode: Mode = "input";
  private lastCtrlC = 0;
  private historyFile: string | undefined;
  /** Text of a bracketed paste while it arrives. */
  private pasting: string | undefined;
  /** Multi-line pastes by number, expanded when the line is sent. */
  private readonly pastes = new Map<number, string>();
  /** Keys typed while a run went (not echoed): the next prompt starts with them. */
  private typeAhead = "";
  private onInterrupt: (() => void) | undefined;
  /** The question being asked takes one key as its answer, no Enter. */
  private oneKey = false;
  private resizeGuards: (() => void)[] = [];
  private readonly restorePaste = () => void (movesCursor(process.stdout) && process.stdout.write(PASTE_OFF));

  open(historyFile: string, completer?: Completer): void {
    this.historyFile = historyFile;
    const before = new Set(process.stdout.listeners("resize"));
    const rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      history: loadHistory(historyFile),
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      ...(completer ? { completer } : {}),
    });
    this.rl = rl;
    this.guardResize(rl, before);
    // Every key passes here first (readline reads `_ttyWrite` for each key): paste, and keys during a run.
    const own = rl as unknown as { _ttyWrite: TtyWrite };
    const original = own._ttyWrite.bind(rl);
    own._ttyWrite = (s, key) => this.onKey(s, key, original);
    rl.on("line", (line) => this.deliver(this.expandPastes(line)));
    rl.on("close", () => this.deliver(null));
    rl.on("SIGINT", () => this.onCtrlC());
    rl.on("history", (h: string[]) => saveHistory(historyFile, h.map((l) => this.expandPastes(l))));
    if (movesCursor(process.stdout)) {
      process.stdout.write(PASTE_ON);
      process.once("exit", this.restorePaste);
    }
  }

  /** One input: lines ending in `\` continue on the next. Null at Ctrl-D, or Ctrl-C twice. */
  async readInput(): Promise<string | null> {
    const lines: string[] = [];
    for (let prompt = PROMPT; ; prompt = CONTINUATION) {
      const line = await this.ask(prompt, lines.length === 0);
      if (line === null) return lines.length ? lines.join("\n") : null;
      if (!line.endsWith("\\")) {
        lines.push(line);
        return lines.join("\n");
      }
      lines.push(line.slice(0, -1));
    }
  }

  /** Run `fn` with the keys captured: Ctrl-C calls `onInterrupt`, the rest wait for the next prompt. */
  async whileRunning<T>(fn: () => Promise<T>, onInterrupt: () => void): Promise<T> {
    this.mode = "running";
    this.onInterrupt = onInterrupt;
    setRawMode(true);
    // No prompt to redraw (a terminal resize makes readline redraw its line) over the run's output.
    this.rl?.setPrompt("");
    this.rl?.resume();
    try {
      return await fn();
    } finally {
      this.mode = "input";
      this.onInterrupt = undefined;
    }
  }

  /** A permission question in the middle of a run. Null when the user pressed Ctrl-C. */
  async askDuringRun(question: string, options: { oneKey?: boolean } = {}): Promise<string | null> {
    // Keys already typed, and those still in the terminal's buffer (read within the wait), are dropped.
    await new Promise((r) => setTimeout(r, 30));
    await new Promise((r) => setImmediate(r));
    this.typeAhead = "";
    this.mode = "asking";
    this.oneKey = options.oneKey === true;
    try {
      const { preamble, prompt } = splitQuestion(question);
      process.stdout.write(preamble);
      const answer = await this.ask(prompt, false);
      // Answers are not worth keeping in the history.
      const h = (this.rl as unknown as { history?: string[] } | undefined)?.history;
      if (answer !== null && h?.[0] === answer) h.shift();
      return answer;
    } finally {
      if (this.mode === "asking") this.mode = "running";
      this.oneKey = false;
    }
  }

  /**
   * readline draws its line again on a resize (up by the rows its cursor was on, then erase below). During
   * a run it has no line of its own, and erasing would cut the renderer's: the renderer redraws what it
   * shows. Where the terminal rewraps the cursor's line itself, readline's count of rows is the one at the
   * new width.
   */
  private guardResize(rl: Interface, before: Set<unknown>): void {
    for (const listener of process.stdout.listeners("resize").filter((l) => !before.has(l))) {
      process.stdout.off("resize", listener as () => void);
      const guarded = () => {
        if (this.mode === "running") return;
        if (cursorLineReflows()) (rl as unknown as { prevRows: number }).prevRows = rl.getCursorPos().rows;
        (listener as () => void)();
      };
      process.stdout.on("resize", guarded);
      this.resizeGuards.push(guarded);
    }
  }

  close(): void {
    for (const guarded of this.resizeGuards.splice(0)) process.stdout.off("resize", guarded);
    const rl = this.rl;
    this.rl = undefined;
    rl?.close();
    this.restorePaste();
    process.off("exit", this.restorePaste);
  }

  private ask(prompt: string, withTypeAhead: boolean): Promise<string | null> {
    const rl = this.rl;
    if (!rl) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.pending = resolve;
      clearLine(rl);
      rl.setPrompt(prompt);
      rl.prompt();
      if (withTypeAhead && this.typeAhead) {
        const text = this.typeAhead;
        this.typeAhead = "";
        rl.write(text);
      }
    });
  }

  private onKey(s: string | undefined, key: Key | undefined, original: TtyWrite): void {
    if (key?.name === "paste-start") {
      this.pasting = "";
      return;
    }
    if (key?.name === "paste-end") {
      const text = (this.pasting ?? "").replace(/\r\n?/g, "\n");
      this.pasting = undefined;
      this.insertPaste(text, original);
      return;
    }
    if (this.pasting !== undefined) {
      this.pasting += key?.name === "return" || key?.name === "enter" ? "\n" : (s ?? "");
      return;
    }
    if (this.mode === "asking" && this.oneKey && isAnswerKey(s, key)) {
      process.stdout.write(`${s}\n`);
      this.deliver(s!);
      return;
    }
    if (this.mode !== "running") return original(s, key);
    // Esc interrupts as Ctrl-C does (Claude Code's key for it).
    if ((key?.ctrl && key.name === "c") || key?.name === "escape") return this.onInterrupt?.();
    if (key?.name === "backspace") this.typeAhead = [...this.typeAhead].slice(0, -1).join("");
    else if (typeof s === "string" && !key?.ctrl && !key?.meta && s >= " " && key?.name !== "return" && key?.name !== "enter") this.typeAhead += s;
  }

  /** A one-line paste is typed in; a longer one becomes a placeholder, expanded when the line is sent. */
  private insertPaste(text: string, original: TtyWrite): void {
    const body = text.replace(/\n+$/, "");
    if (this.mode === "running") {
      this.typeAhead += body.includes("\n") ? this.placeholder(body) : body;
      return;
    }
    if (this.mode === "asking") return; // an answer is typed, not pasted
    original(body.includes("\n") ? this.placeholder(body) : body, undefined);
  }

  private placeholder(body: string): string {
    const n = this.pastes.size + 1;
    this.pastes.set(n, body);
    return `[Pasted text #${n} +${body.split("\n").length - 1} lines]`;
  }

  private expandPastes(line: string): string {
    if (!this.pastes.size) return line;
    return line.replace(/\[Pasted text #(\d+) \+\d+ lines\]/g, (m, n: string) => this.pastes.get(Number(n)) ?? m);
  }

  private deliver(line: string | null): void {
    const p = this.pending;
    this.pending = undefined;
    // Lines typed while nothing was asked are dropped rather than answering later questions.
    p?.(line);
  }

  private onCtrlC(): void {
    const rl = this.rl!;
    if (this.mode === "asking") {
      process.stdout.write("^C\n");
      this.deliver(null);
      return;
    }
    if (rl.line) {
      // Clear what was typed, as shells do.
      process.stdout.write("^C\n");
      clearLine(rl);
      rl.prompt();
      return;
    }
    const now = Date.now();
    if (now - this.lastCtrlC < 2000) {
      process.stdout.write("\n");
      this.deliver(null);
      return;
    }
    this.lastCtrlC = now;
    process.stdout.write("\n(press Ctrl-C again to quit, or type /exit)\n");
    rl.prompt();
  }
}

function clearLine(rl: Interface): void {
  (rl as unknown as { line: string; cursor: number }).line = "";
  (rl as unknown as { cursor: number }).cursor = 0;
}

function setRawMode(on: boolean): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(on);
}

function loadHistory(file: string): string[] {
  try {
    // Stored oldest first, one entry per line (newlines inside an entry escaped); readline wants newest first.
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.replace(/\\n/g, "\n"))
      .reverse()
      .slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function saveHistory(file: string, history: string[]): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // What was typed may hold a token pasted by hand: the user's alone.
    writeFileAtomic(file, `${[...history].reverse().map((l) => l.replace(/\n/g, "\\n")).join("\n")}\n`, 0o600);
  } catch {
    // History is a convenience: never fail the session over it.
  }
}
