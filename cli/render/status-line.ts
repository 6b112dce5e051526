/**
 * The pretty renderer's live status line on a terminal: a spinner with the running tool (or "Thinking…")
 * and its seconds, redrawn in place until a finished line or the answer takes its place.
 */
import type { Output, Style } from "./_style.js";
import { eraseRows, liveRows } from "./live-rows.js";
import { clipWords, displayWidth } from "./text-width.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPIN_MS = 80;

export interface RunningTool {
  name: string;
  detail: string;
  /** When the tool started running (reset after a permission question, so waiting for the user does not count). */
  started: number;
  asked?: boolean;
  progress?: string;
}

export interface StatusLineOptions {
  err: Output;
  style: Style;
  /** Draw at all (stderr is a terminal). */
  live: boolean;
  width(): number;
  /** The terminal's width now. */
  columns(): number;
  /** Called before each draw: the streamed text's line is ended first. */
  beforeDraw(): void;
}

export class StatusLine {
  readonly running = new Map<string, RunningTool>();
  thinkingSince: number | undefined;
  /** Off while the permission prompt asks its question. */
  paused = false;
  private shown = false;
  /** What is drawn, and the terminal's width then (a resize may leave it wider than the screen). */
  private drawn = { width: 0, cols: 1 };
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: StatusLineOptions) {}

  clear(): void {
    if (this.shown) {
      const cols = this.options.columns();
      const rows = cols === this.drawn.cols ? 1 : liveRows(" ".repeat(this.drawn.width), this.drawn.cols, cols);
      this.options.err.write(rows > 1 ? eraseRows(rows) : "\r\x1b[K");
      this.shown = false;
    }
  }

  /** The terminal was resized: erase the line as it now stands and draw it at the new width. */
  resized(): void {
    if (!this.shown) return;
    this.clear();
    this.draw();
  }

  draw(): void {
    const { err, style: s, live } = this.options;
    if (!live || this.paused) return;
    const label = this.label(performance.now());
    if (!label) {
      this.clear();
      this.stopTimer();
      return;
    }
    this.options.beforeDraw();
    const text = clipWords(label, this.options.width() - 2);
    if (this.shown && this.options.columns() !== this.drawn.cols) this.clear();
    err.write(`\r\x1b[K${s.cyan(FRAMES[this.frame++ % FRAMES.length])} ${s.dim(text)}`);
    this.shown = true;
    this.drawn = { width: 2 + displayWidth(text), cols: this.options.columns() };
    if (!this.timer) {
      this.timer = setInterval(() => this.draw(), SPIN_MS);
      this.timer.unref();
    }
  }

  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private label(now: number): string | undefined {
    const running = this.running;
    if (running.size === 1) {
      const [r] = running.values();
      const secs = Math.floor((now - r.started) / 1000);
      return `${r.name}${r.detail ? ` ${r.detail}` : ""}${r.progress ? ` · ${r.progress}` : ""}${secs ? ` (${secs}s)` : ""}`;
    }
    if (running.size > 1) return `${running.size} tools running: ${[...running.values()].map((r) => r.name).join(", ")}`;
    if (this.thinkingSince !== undefined) {
      const secs = Math.floor((now - this.thinkingSince) / 1000);
      return `Thinking…${secs ? ` (${secs}s)` : ""}`;
    }
    return undefined;
  }
}
