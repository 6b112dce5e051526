/**
 * Text measured as a terminal shows it: display columns (`string-width`: CJK and emoji take two, ANSI
 * escapes none), so tables line up and long lines wrap at words instead of being cut mid-word.
 */
import stringWidth from "string-width";

export const displayWidth = (s: string): number => stringWidth(s);

export function padDisplay(s: string, width: number, align: "left" | "right" | "center" = "left"): string {
  const gap = Math.max(0, width - stringWidth(s));
  if (align === "right") return " ".repeat(gap) + s;
  if (align === "center") return " ".repeat(Math.floor(gap / 2)) + s + " ".repeat(gap - Math.floor(gap / 2));
  return s + " ".repeat(gap);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/y;

/** Split `s` into pieces no wider than `width` (grapheme by grapheme, escapes kept whole). */
function hardBreak(s: string, width: number): string[] {
  const out: string[] = [];
  let cur = "";
  let w = 0;
  for (let i = 0; i < s.length; ) {
    ANSI.lastIndex = i;
    const esc = ANSI.exec(s);
    if (esc) {
      cur += esc[0];
      i += esc[0].length;
      continue;
    }
    const seg = graphemes.segment(s.slice(i, i + 32))[Symbol.iterator]().next().value!.segment;
    const sw = stringWidth(seg);
    if (w + sw > width && cur) {
      out.push(cur);
      cur = "";
      w = 0;
    }
    cur += seg;
    w += sw;
    i += seg.length;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Word-wrap each line of `text` to `width` columns; continuation lines get `indent`. A word wider than
 * the line is broken. Existing newlines are kept.
 */
export function wrapText(text: string, width: number, indent = ""): string[] {
  const room = Math.max(8, width);
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const lead = /^\s*/.exec(line)![0];
    const words = line.slice(lead.length).split(/ +/).filter((w) => w !== "");
    let cur = lead;
    let curWidth = stringWidth(lead);
    let first = true;
    const push = () => {
      out.push(cur);
      cur = indent;
      curWidth = stringWidth(indent);
      first = false;
    };
    if (!words.length) {
      out.push(line);
      continue;
    }
    for (const word of words) {
      const ww = stringWidth(word);
      const sep = curWidth > (first ? stringWidth(lead) : stringWidth(indent)) ? 1 : 0;
      if (curWidth + sep + ww <= room) {
        cur += (sep ? " " : "") + word;
        curWidth += sep + ww;
        continue;
      }
      if (sep) push();
      if (curWidth + ww <= room) {
        cur += word;
        curWidth += ww;
        continue;
      }
      const pieces = hardBreak(word, room - curWidth);
      for (const [i, piece] of pieces.entries()) {
        cur += piece;
        curWidth += stringWidth(piece);
        if (i < pieces.length - 1) push();
      }
    }
    out.push(cur);
  }
  return out;
}

/**
 * A table cell's text in lines no wider than `width`: wrapped at words; a word wider than the column is
 * cut with "…" (a cell is not broken mid-word); Chinese, Japanese and Korean text breaks between
 * characters. Styles open at the end of a line are closed there and opened again on the next, so a
 * border drawn between them is not styled.
 */
export function wrapCell(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  for (const para of text.split("\n")) {
    let cur = "";
    let curWidth = 0;
    for (const word of para.split(/ +/).filter((x) => x !== "")) {
      const ww = stringWidth(word);
      if (ww > w && breaksAnywhere(word)) {
        // Chinese, Japanese and Korean text breaks between characters: no word is cut.
        if (cur && curWidth + 2 > w) {
          lines.push(cur);
          cur = "";
        }
        const pieces = hardBreak(cur ? `${cur} ${word}` : word, w);
        lines.push(...pieces.slice(0, -1));
        cur = pieces[pieces.length - 1] ?? "";
        curWidth = stringWidth(cur);
        continue;
      }
      const fitted = ww <= w ? word : `${hardBreak(word, Math.max(1, w - 1))[0] ?? ""}…`;
      const fw = Math.min(ww, w);
      if (cur && curWidth + 1 + fw <= w) {
        cur += ` ${fitted}`;
        curWidth += 1 + fw;
        continue;
      }
      if (cur) lines.push(cur);
      cur = fitted;
      curWidth = fw;
    }
    lines.push(cur);
  }
  return carryStyles(lines);
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
/** Chinese, Japanese or Korean text: a line may break between any two of its characters. */
export const breaksAnywhere = (word: string): boolean => CJK.test(word);
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[([0-9;]*)m/g;
const CLOSES: Record<string, (open: number) => boolean> = {
  "22": (o) => o === 1 || o === 2,
  "23": (o) => o === 3,
  "24": (o) => o === 4,
  "29": (o) => o === 9,
  "39": (o) => (o >= 30 && o <= 37) || (o >= 90 && o <= 97),
};

/** Each line closes the styles still open at its end and the next one opens them again. */
function carryStyles(lines: string[]): string[] {
  let open: number[] = [];
  return lines.map((line) => {
    const head = open.map((o) => `\x1b[${o}m`).join("");
    for (const m of line.matchAll(SGR)) {
      for (const code of (m[1] || "0").split(";")) {
        if (code === "0") open = [];
        else if (CLOSES[code]) open = open.filter((o) => !CLOSES[code](o));
        else open.push(Number(code));
      }
    }
    return `${head}${line}${open.length ? "\x1b[0m" : ""}`;
  });
}

/** One line no wider than `max` columns: cut at a word boundary when one is near, with "…". */
export function clipWords(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  if (stringWidth(flat) <= max) return flat;
  const [head] = hardBreak(flat, Math.max(1, max - 1));
  const space = head.lastIndexOf(" ");
  return `${space > head.length * 0.6 ? head.slice(0, space) : head}…`;
}
