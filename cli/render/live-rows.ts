/**
 * How many rows a live part of the screen (the streamed block's preview, the spinner line, the prompt)
 * takes after the terminal was resized, so it can be erased and drawn again at the new width.
 *
 * Terminals differ on the line the cursor is on. xterm, and xterm.js (VS Code's terminal and most web
 * terminals), rewrap the earlier lines at the new width but leave the cursor's line as it was drawn (cut,
 * not rewrapped: the program is expected to draw it again). VTE (GNOME Terminal, Tilix), kitty, iTerm2,
 * WezTerm, Alacritty and Windows Terminal rewrap the cursor's line too. The second kind is recognised by the
 * variables those terminals set; any other terminal is taken to be of the first kind.
 */
import { displayWidth } from "./text-width.js";

export function cursorLineReflows(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TMUX || env.STY) return false; // a multiplexer draws the screen itself; tmux and screen keep the cursor's line
  if (env.VTE_VERSION || env.KITTY_WINDOW_ID || env.WT_SESSION || env.ALACRITTY_WINDOW_ID || env.WEZTERM_PANE) return true;
  return env.TERM_PROGRAM === "iTerm.app" || env.TERM_PROGRAM === "WezTerm" || env.TERM === "xterm-kitty" || env.TERM === "alacritty";
}

/** Rows `line` takes at `cols` columns (an empty line takes one). */
export function rowsAt(line: string, cols: number): number {
  return Math.max(1, Math.ceil(displayWidth(line) / Math.max(1, cols)));
}

/**
 * Rows `text` (drawn from the start of a row, ending at the cursor) takes now: its lines rewrapped at
 * `cols`, but the last one, the cursor's, at `drawnCols` unless the terminal rewraps that one too.
 */
export function liveRows(text: string, drawnCols: number, cols: number, reflows = cursorLineReflows()): number {
  const lines = text.split("\n");
  const last = lines.pop()!;
  return lines.reduce((n, l) => n + rowsAt(l, cols), 0) + rowsAt(last, reflows ? cols : drawnCols);
}

/** Move to the start of the first of `rows` rows that end at the cursor, and erase them (and below). */
export function eraseRows(rows: number): string {
  return `\r${rows > 1 ? `\x1b[${rows - 1}A` : ""}\x1b[0J`;
}
