/**
 * The model's answers as Markdown in a terminal: parsed with `marked` (its lexer only), drawn with
 * ANSI styles: headings, emphasis, inline code, links, lists (nested, ordered, tasks), block quotes,
 * fenced code (never re-wrapped), rules, and tables whose columns line up by display width (CJK, emoji)
 * and, wider than the terminal, are narrowed with their cells wrapped at words.
 * Without colours the structure stays (bullets, indentation, box-drawn tables). `createMarkdownStream`
 * renders block by block as text streams in, so a paragraph appears once it is complete.
 */
import { Lexer, type Token, type Tokens } from "marked";
import type { Style } from "./_style.js";
import { eraseRows, liveRows, rowsAt } from "./live-rows.js";
import { breaksAnywhere, displayWidth, padDisplay, wrapCell, wrapText } from "./text-width.js";

export interface MarkdownOptions {
  width: number;
  style: Style;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
function decode(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

function sgr(on: boolean, open: number, close: number): (s: string) => string {
  return (s) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
}

function inline(tokens: Token[] | undefined, s: Style): string {
  const italic = sgr(s.enabled, 3, 23);
  const strike = sgr(s.enabled, 9, 29);
  const underline = sgr(s.enabled, 4, 24);
  let out = "";
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "strong":
        out += s.bold(inline(t.tokens, s));
        break;
      case "em":
        out += italic(inline(t.tokens, s));
        break;
      case "del":
        out += strike(inline(t.tokens, s));
        break;
      case "codespan":
        out += s.enabled ? s.cyan(decode(t.text)) : `\`${decode(t.text)}\``;
        break;
      case "link": {
        const text = inline(t.tokens, s);
        const plain = decode((t as Tokens.Link).text);
        out += plain === t.href || `mailto:${plain}` === t.href ? underline(s.blue(t.href)) : `${text} (${underline(s.blue(t.href))})`;
        break;
      }
      case "image":
        out += `[image: ${decode((t as Tokens.Image).text) || t.href}]`;
        break;
      case "br":
        out += "\n";
        break;
      case "escape":
        out += t.text;
        break;
      case "checkbox":
        break;
      default:
        out += "tokens" in t && Array.isArray(t.tokens) && t.tokens.length ? inline(t.tokens, s) : decode(String((t as { text?: string }).text ?? t.raw ?? ""));
    }
  }
  return out;
}

const BULLETS = ["•", "◦", "▪"];

function blocks(tokens: Token[], o: MarkdownOptions, depth: number): string[] {
  const s = o.style;
  const out: string[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "space":
        break;
      case "heading": {
        const text = inline(t.tokens, s);
        // Without colours the #s stay, so a heading still reads as one.
        const shown = !s.enabled ? `${"#".repeat(t.depth)} ${text}` : t.depth === 1 ? sgr(true, 4, 24)(s.bold(text)) : s.bold(text);
        out.push("", ...wrapText(shown, o.width), "");
        break;
      }
      case "paragraph":
        out.push(...wrapText(inline(t.tokens, s), o.width), "");
        break;
      case "text":
        // A tight list item's text (with inline tokens), or loose text.
        out.push(...wrapText("tokens" in t && t.tokens ? inline(t.tokens, s) : decode(t.text), o.width));
        break;
      case "code": {
        const lang = (t as Tokens.Code).lang;
        if (lang) out.push(s.gray(lang));
        for (const line of (t as Tokens.Code).text.split("\n")) out.push(line ? `  ${s.enabled ? s.cyan(line) : line}` : "");
        out.push("");
        break;
      }
      case "blockquote": {
        const inner = blocks((t as Tokens.Blockquote).tokens, { ...o, width: o.width - 2 }, depth);
        while (inner.length && inner[inner.length - 1] === "") inner.pop();
        out.push(...inner.map((l) => `${s.gray("│")} ${l}`), "");
        break;
      }
      case "list":
        out.push(...list(t as Tokens.List, o, depth));
        if (depth === 0) out.push("");
        break;
      case "table":
        out.push(...table(t as Tokens.Table, s, o.width), "");
        break;
      case "hr":
        out.push(s.gray("─".repeat(Math.min(o.width, 40))), "");
        break;
      case "html":
        out.push(...wrapText(t.text.trimEnd(), o.width));
        break;
      default:
        if ("text" in t && typeof t.text === "string") out.push(...wrapText(decode(t.text), o.width));
    }
  }
  return out;
}

function list(t: Tokens.List, o: MarkdownOptions, depth: number): string[] {
  const s = o.style;
  const out: string[] = [];
  const start = typeof t.start === "number" ? t.start : 1;
  const markers = t.items.map((item, i) => {
    if (item.task) return item.checked ? "☑" : "☐";
    return t.ordered ? `${start + i}.` : BULLETS[depth % BULLETS.length];
  });
  const markWidth = Math.max(...markers.map(displayWidth));
  for (const [i, item] of t.items.entries()) {
    const pad = " ".repeat(markWidth + 1);
    const body = blocks(item.tokens, { ...o, width: o.width - markWidth - 1 }, depth + 1);
    while (body.length && body[body.length - 1] === "") body.pop();
    const marker = t.ordered ? markers[i] : s.gray(markers[i]);
    body.forEach((line, j) => out.push(j === 0 ? `${padDisplay(marker, markWidth)} ${line}` : line ? `${pad}${line}` : ""));
    if (!body.length) out.push(marker);
    if (t.loose && i < t.items.length - 1) out.push("");
  }
  return out;
}

/** Display widths of a cell's words (text in Chinese, Japanese or Korean breaks anywhere: two columns). */
function longestWord(cell: string): number[] {
  return cell.split(/[ \n]+/).map((w) => (breaksAnywhere(w) ? 2 : displayWidth(w)));
}

/**
 * A table in box-drawing lines. Wider than `width`, its columns are narrowed (see `fitColumns`), cells
 * wrap at words within them, and a rule between rows keeps a wrapped row reading as one.
 */
function table(t: Tokens.Table, s: Style, width: number): string[] {
  const head = t.header.map((c) => inline(c.tokens, s));
  const rows = t.rows.map((r) => r.map((c) => inline(c.tokens, s)));
  const natural = head.map((h, i) => Math.max(1, ...[h, ...rows.map((r) => r[i] ?? "")].flatMap((c) => c.split("\n").map(displayWidth))));
  const words = head.map((h, i) => Math.max(1, ...[h, ...rows.map((r) => r[i] ?? "")].flatMap(longestWord)));
  const widths = fitColumns(natural, words, width - (3 * natural.length + 1));
  const fitted = widths.some((w, i) => w < natural[i]);
  const align = (i: number) => (t.align[i] === "right" ? "right" : t.align[i] === "center" ? "center" : "left");
  const line = (l: string, m: string, r: string) => s.gray(l + widths.map((w) => "─".repeat(w + 2)).join(m) + r);
  const row = (cells: string[], bold: boolean) => {
    const wrapped = widths.map((w, i) => wrapCell(cells[i] ?? "", w).map((c) => (bold && c ? s.bold(c) : c)));
    const height = Math.max(...wrapped.map((c) => c.length));
    return Array.from({ length: height }, (_, k) =>
      s.gray("│") + widths.map((w, i) => ` ${padDisplay(wrapped[i][k] ?? "", w, align(i))} `).join(s.gray("│")) + s.gray("│"));
  };
  const body = rows.flatMap((r, i) => (fitted && i > 0 ? [line("├", "┼", "┤"), ...row(r, false)] : row(r, false)));
  return [line("┌", "┬", "┐"), ...row(head, true), line("├", "┼", "┤"), ...body, line("└", "┴", "┘")];
}

/**
 * Column widths within `room` columns: as wide as their content when it fits. Else each column gets at
 * least its longest word (`words`), or its whole width when that is no more than an equal share, and the
 * rest is shared in proportion to what each still lacks. When even the words do not fit, columns
 * narrower than an equal share keep their width and the wider ones share the rest in proportion (their
 * long words are cut).
 */
function fitColumns(natural: number[], words: number[], room: number): number[] {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (sum(natural) <= room) return natural;
  // At least: a column no wider than an equal share keeps its width, and none is narrower than its longest word.
  const equal = Math.floor(room / natural.length);
  for (const floor of [natural.map((n, i) => Math.min(n, Math.max(words[i], equal))), natural.map((n, i) => Math.min(n, words[i]))]) {
    if (sum(floor) <= room) return share(floor, natural.map((n, i) => n - floor[i]), room - sum(floor));
  }
  let rest = natural.map((_, i) => i);
  let left = Math.max(room, natural.length);
  // Columns narrower than an equal share keep their width; the others share what is left.
  for (;;) {
    const equal = left / rest.length;
    const small = rest.filter((i) => natural[i] <= equal);
    if (!small.length) break;
    for (const i of small) left -= natural[i];
    rest = rest.filter((i) => natural[i] > equal);
  }
  const base = natural.map((n, i) => (rest.includes(i) ? 1 : n));
  return share(base, natural.map((n, i) => (rest.includes(i) ? n : 0)), left - rest.length);
}

/** `base` plus `extra` columns shared in proportion to `want` (never more than wanted), rounding to the neediest. */
function share(base: number[], want: number[], extra: number): number[] {
  const total = want.reduce((a, b) => a + b, 0);
  if (total <= 0 || extra <= 0) return base;
  const widths = base.map((b, i) => b + Math.min(want[i], Math.floor((extra * want[i]) / total)));
  let spare = extra - widths.reduce((a, w, i) => a + w - base[i], 0);
  for (const i of want.map((_, i) => i).sort((a, b) => want[b] - want[a])) {
    if (spare <= 0) break;
    if (widths[i] - base[i] < want[i]) {
      widths[i]++;
      spare--;
    }
  }
  return widths;
}

/** Render a whole Markdown text for the terminal (ends with a newline when non-empty). */
export function renderMarkdown(text: string, o: MarkdownOptions): string {
  const lines = blocks(Lexer.lex(text), o, 0);
  while (lines.length && lines[0] === "") lines.shift();
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  // Runs of blank lines (a heading after a paragraph) collapse to one.
  const kept = lines.filter((l, i) => !(l === "" && lines[i - 1] === ""));
  return kept.length ? `${kept.join("\n")}\n` : "";
}

export interface StreamOptions {
  /** Show the block being written as raw text while it streams, then redraw it rendered (a terminal). */
  preview?: { columns(): number; rows(): number };
}

/**
 * Markdown as it streams: each block is rendered once it is complete (a blank line outside a code
 * fence). Meanwhile, with `preview`, the incomplete block is shown as it arrives and erased when its
 * rendering replaces it; a block taller than the screen (which cannot be erased) stays as raw text.
 * `flush` renders what is left (the answer ended, or a tool line must be printed).
 */
export function createMarkdownStream(write: (s: string) => void, o: () => MarkdownOptions, stream: StreamOptions = {}) {
  let buf = "";
  let started = false;
  /** Raw text on screen for the pending block (with the separator before it); undefined when none. */
  let shown: string | undefined;
  let tooTall = false;
  /** The terminal's width when the preview was drawn (a resize since leaves its last line as it was, on most). */
  let drawnCols = 0;
  const sep = () => (started ? "\n" : "");
  const cols = () => Math.max(1, stream.preview!.columns());
  const rowsOf = (text: string, at: number) => text.split("\n").reduce((n, line) => n + rowsAt(line, at), 0);
  const erase = () => {
    if (shown === undefined) return;
    write(eraseRows(liveRows(shown, drawnCols || cols(), cols())));
    shown = undefined;
  };
  const show = (text: string) => {
    if (!stream.preview || !text) return;
    const raw = text.replace(/\t/g, "    ");
    if (tooTall) return void write(raw);
    const next = (shown ?? sep()) + raw;
    write(shown === undefined ? next : raw);
    if (shown === undefined) drawnCols = cols();
    shown = next;
    // Too tall to erase later: it stays raw, and the rest of the block is shown raw too.
    if (rowsOf(next, cols()) > stream.preview.rows() - 3) {
      tooTall = true;
      shown = undefined;
    }
  };
  const emit = (text: string) => {
    if (tooTall) {
      if (!text.endsWith("\n")) write("\n");
      tooTall = false;
      started = true;
      return;
    }
    erase();
    const out = renderMarkdown(text, o());
    if (!out) return;
    write(`${sep()}${out}`);
    started = true;
  };
  return {
    push(delta: string): void {
      buf += delta;
      const cut = lastBoundary(buf);
      if (cut <= 0) return show(delta);
      // The part of this delta that ends the block was not previewed: the rendering replaces it all.
      const head = buf.slice(0, cut);
      if (tooTall) write(delta.slice(0, Math.max(0, delta.length - (buf.length - cut))));
      emit(head);
      buf = buf.slice(cut);
      show(buf);
    },
    flush(): void {
      if (buf.trim()) emit(buf);
      else erase();
      buf = "";
    },
    /** The terminal was resized: the block being written is drawn again at the new width. */
    redraw(): void {
      if (shown === undefined) return;
      const text = shown;
      erase();
      show(text.slice(sep().length));
    },
    /** Text received and not yet rendered. */
    get pending(): boolean {
      return buf.trim() !== "";
    },
    /** A new answer starts: no blank line before its first block. */
    reset(): void {
      started = false;
      tooTall = false;
    },
  };
}

/** Where the last complete block ends: after a blank line that is outside any ``` / ~~~ fence. */
function lastBoundary(text: string): number {
  let fence: string | undefined;
  let at = 0;
  let cut = 0;
  let prevBlank = false;
  for (const line of text.split("\n").slice(0, -1)) {
    const next = at + line.length + 1;
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1];
      else if (m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = undefined;
    }
    const blank = line.trim() === "";
    // A blank line after content, outside a fence, ends the blocks before it (a code fence that just closed, too).
    if (!fence && blank && !prevBlank) cut = next;
    if (!fence && m && !blank && line.trim() === m[1] && fence === undefined) cut = next;
    prevBlank = blank;
    at = next;
  }
  return cut;
}
