/**
 * edit_file's edit, made on the file's bytes in the file's encoding: every byte it does not replace is
 * kept as it was, line endings included (a CRLF file gets CRLF in what is inserted). Where the edit
 * cannot be exact it throws with the reason, and nothing is written.
 */
import { bomOf, decodeUtf16, detectEncoding, encodeUtf16, encodingLabel, isAscii, isWellFormed, splitsDoubleByte, type Encoding } from "./_encoding.js";

export interface Edit {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface ByteEdit {
  /** The new content, in order (slices of the old buffer and the replacement bytes). */
  parts: Buffer[];
  count: number;
  encoding: Encoding;
}

const LF = 0x0a;
const CR = 0x0d;

/** Where the file's line breaks are CRLF (`crlf`), and whether any is a bare LF. */
function lineEndings(has: (s: string) => boolean, bareLf: () => boolean): { crlf: boolean; bare: boolean } {
  const crlf = has("\r\n");
  return { crlf, bare: crlf ? bareLf() : true };
}

function toCrlf(s: string): string {
  return s.replace(/\r?\n/g, "\r\n");
}

/**
 * The (old, new) pairs to try, in order: as given, and with LF made CRLF when the file uses CRLF. In a file
 * whose every line break is CRLF the CRLF pair comes first and a new_string's line breaks become CRLF too.
 */
function spellings(edit: Edit, eol: () => { crlf: boolean; bare: boolean }): [string, string][] {
  const { old_string: o, new_string: n } = edit;
  if (!o.includes("\n") && !n.includes("\n")) return [[o, n]];
  const { crlf, bare } = eol();
  if (!crlf) return [[o, n]];
  if (!bare) return [[toCrlf(o), toCrlf(n)], [o, n]];
  return [[o, n], [toCrlf(o), toCrlf(n)]];
}

function notFound(p: string, encoding: Encoding): Error {
  const how = encoding === "utf8" ? "" : ` (searched as ${encoding === "bytes" ? "ASCII in a file that is not valid UTF-8" : encodingLabel(encoding)})`;
  return new Error(`old_string was not found in ${p}${how}. Read the file again and copy the text exactly, whitespace included.`);
}

function tooMany(p: string, count: number): Error {
  return new Error(`old_string occurs ${count} times in ${p}; include more surrounding text to make it unique, or set replace_all: true`);
}

/** Start offsets of `needle` in `hay` from `from`, not overlapping. */
function matchesIn(hay: Buffer, needle: Buffer, from: number): number[] {
  const at: number[] = [];
  for (let i = hay.indexOf(needle, from); i !== -1; i = hay.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

/** The first spelling found, with its matches; throws when none is, or when it is not unique and should be. */
function findSpelling(edit: Edit, tries: [string, string][], find: (old: string) => number[], encoding: Encoding): { at: number[]; old: string; next: string } {
  for (const [old, next] of tries) {
    const at = find(old);
    if (!at.length) continue;
    if (at.length > 1 && !edit.replace_all) throw tooMany(edit.path, at.length);
    return { at: edit.replace_all ? at : at.slice(0, 1), old, next };
  }
  throw notFound(edit.path, encoding);
}

/** Old bytes between the matches, the replacement at each. */
function splice(buf: Buffer, at: number[], oldLength: number, replacement: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let prev = 0;
  for (const i of at) {
    parts.push(buf.subarray(prev, i), replacement);
    prev = i + oldLength;
  }
  parts.push(buf.subarray(prev));
  return parts;
}

/** An edit on bytes: UTF-8 (after a BOM, if any) or ASCII in an ASCII-compatible file. */
function editRaw(buf: Buffer, edit: Edit, encoding: Encoding, start: number): ByteEdit {
  const eol = () =>
    lineEndings(
      (s) => buf.indexOf(s, start, "latin1") !== -1,
      () => {
        for (let i = buf.indexOf(LF, start); i !== -1; i = buf.indexOf(LF, i + 1)) if (i === start || buf[i - 1] !== CR) return true;
        return false;
      },
    );
  const enc = encoding === "bytes" ? "latin1" : "utf8";
  const found = findSpelling(edit, spellings(edit, eol), (old) => matchesIn(buf, Buffer.from(old, enc), start), encoding);
  if (encoding === "bytes") {
    const split = splitsDoubleByte(buf, found.at);
    if (split) {
      throw new Error(
        `${edit.path} is not valid UTF-8 and could be ${split}, where old_string would start in the middle of a character; ` +
          `edit_file cannot make this edit exactly. Start old_string after an ASCII character, or rewrite the file with write_file.`,
      );
    }
  }
  const old = Buffer.from(found.old, enc);
  return { parts: splice(buf, found.at, old.length, Buffer.from(found.next, enc)), count: found.at.length, encoding };
}

/** An edit on UTF-16 text, code unit for code unit, written back with its BOM. */
function editUtf16(buf: Buffer, edit: Edit, encoding: "utf16le" | "utf16be"): ByteEdit {
  const big = encoding === "utf16be";
  if (buf.length % 2) throw new Error(`${edit.path} starts with a ${encodingLabel(encoding)} BOM but has an odd number of bytes; edit_file cannot edit it exactly`);
  const text = decodeUtf16(buf.subarray(2), big);
  const eol = () => lineEndings((s) => text.includes(s), () => /(^|[^\r])\n/.test(text));
  const find = (old: string) => {
    const at: number[] = [];
    for (let i = text.indexOf(old); i !== -1; i = text.indexOf(old, i + old.length)) at.push(i);
    return at;
  };
  const found = findSpelling(edit, spellings(edit, eol), find, encoding);
  let out = "";
  let prev = 0;
  for (const i of found.at) {
    out += text.slice(prev, i) + found.next;
    prev = i + found.old.length;
  }
  out += text.slice(prev);
  return { parts: [buf.subarray(0, 2), encodeUtf16(out, big)], count: found.at.length, encoding };
}

/** The edit of `buf` as asked, in its encoding; throws (nothing changed) where it cannot be exact. */
export function editBytes(buf: Buffer, edit: Edit): ByteEdit {
  const { old_string, new_string, path: p } = edit;
  if (!isWellFormed(old_string) || !isWellFormed(new_string)) throw new Error("old_string or new_string holds a lone UTF-16 surrogate, which no file encoding here can hold exactly");
  const encoding = detectEncoding(buf);
  if (encoding === "utf16le" || encoding === "utf16be") return editUtf16(buf, edit, encoding);
  if (encoding === "bytes") {
    if (!isAscii(old_string) || !isAscii(new_string)) {
      throw new Error(
        `${p} is not valid UTF-8 (an unknown encoding, read_file shows it as Latin-1); edit_file edits such a file only where old_string ` +
          `and new_string are both ASCII, so that every other byte stays as it is. Use ASCII text around the change, or rewrite the file with write_file.`,
      );
    }
    if (buf.includes(0)) throw new Error(`${p} is not valid UTF-8 and holds NUL bytes (UTF-16 or UTF-32 without a BOM, or binary); edit_file cannot edit it exactly`);
  }
  return editRaw(buf, edit, encoding, bomOf(buf).bomLength);
}
