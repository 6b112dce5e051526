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

/** One line no wider than `max` columns: cut at a word boundary when one is near, with "…". */
export function clipWords(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  if (stringWidth(flat) <= max) return flat;
  const [head] = hardBreak(flat, Math.max(1, max - 1));
  const space = head.lastIndexOf(" ");
  return `${space > head.length * 0.6 ? head.slice(0, space) : head}…`;
}
