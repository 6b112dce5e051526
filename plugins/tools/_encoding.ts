/**
 * What a file's bytes are, for the file tools: UTF-8 (with or without a BOM), UTF-16 LE/BE with a BOM, or
 * "bytes" (not valid UTF-8, no BOM: edited only as ASCII over an ASCII-compatible encoding, and read as
 * Latin-1, which maps every byte to one character and back). Nothing here guesses a legacy code page.
 */
import { isUtf8 as isUtf8Bytes } from "node:buffer";

export type Encoding = "utf8" | "utf8-bom" | "utf16le" | "utf16be" | "bytes";

/** The BOM (or none) and what it says. `bytes` here means only "no BOM": see `isUtf8` for the rest. */
export function bomOf(buf: Buffer): { encoding: "utf8-bom" | "utf16le" | "utf16be" | undefined; bomLength: number } {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return { encoding: "utf8-bom", bomLength: 3 };
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { encoding: "utf16le", bomLength: 2 };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { encoding: "utf16be", bomLength: 2 };
  return { encoding: undefined, bomLength: 0 };
}

/** Whether `buf` is valid UTF-8; `partialEnd` allows a sequence cut at the end (a line capped mid-character). */
export function isUtf8(buf: Uint8Array, partialEnd = false): boolean {
  // buffer.isUtf8 checks without making a string: a 300 MB file is checked in place.
  if (!partialEnd) return isUtf8Bytes(buf);
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buf, { stream: partialEnd });
    return true;
  } catch {
    return false;
  }
}

/** The encoding of a whole file's bytes. */
export function detectEncoding(buf: Buffer): Encoding {
  const { encoding } = bomOf(buf);
  if (encoding) return encoding;
  return isUtf8(buf) ? "utf8" : "bytes";
}

/** How a tool names an encoding to the model. */
export function encodingLabel(e: Encoding): string {
  return { utf8: "UTF-8", "utf8-bom": "UTF-8 with BOM", utf16le: "UTF-16 LE", utf16be: "UTF-16 BE", bytes: "Latin-1" }[e];
}

/** UTF-16 bytes (no BOM) as text, code unit for code unit (a lone surrogate stays one). */
export function decodeUtf16(buf: Buffer, bigEndian: boolean): string {
  const le = bigEndian ? Buffer.from(buf).swap16() : buf;
  return le.toString("utf16le");
}

/** Text as UTF-16 bytes (no BOM), code unit for code unit. */
export function encodeUtf16(text: string, bigEndian: boolean): Buffer {
  const le = Buffer.from(text, "utf16le");
  return bigEndian ? le.swap16() : le;
}

/** Whether `s` survives UTF-8 encoding (no lone surrogates, which would turn into U+FFFD). */
export function isWellFormed(s: string): boolean {
  return Buffer.from(s, "utf8").toString("utf8") === s;
}

export function isAscii(s: string): boolean {
  return /^[\x00-\x7f]*$/.test(s);
}

/**
 * Double-byte encodings whose second byte can be an ASCII letter (Shift-JIS, GBK, Big5): where the whole
 * file is valid in one of them, an ASCII match at a second byte would cut a character in two. Each entry
 * says whether a byte leads a two-byte character and whether a byte can follow it.
 */
const DOUBLE_BYTE: { name: string; lead: (b: number) => boolean; trail: (b: number) => boolean }[] = [
  { name: "Shift-JIS", lead: (b) => (b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xfc), trail: (b) => b >= 0x40 && b <= 0xfc && b !== 0x7f },
  { name: "GBK", lead: (b) => b >= 0x81 && b <= 0xfe, trail: (b) => b >= 0x40 && b <= 0xfe && b !== 0x7f },
  { name: "Big5", lead: (b) => b >= 0x81 && b <= 0xfe, trail: (b) => (b >= 0x40 && b <= 0x7e) || (b >= 0xa1 && b <= 0xfe) },
];

/**
 * The double-byte encoding in which one of the sorted `starts` falls inside a character, if the file is
 * valid in that encoding; undefined when every start is a character boundary in every encoding the file could be.
 */
export function splitsDoubleByte(buf: Buffer, starts: number[]): string | undefined {
  // A second byte follows a lead byte (>= 0x81): a start after an ASCII byte is a boundary in all of them.
  const suspects = starts.filter((s) => s > 0 && buf[s - 1]! >= 0x80);
  if (!suspects.length) return undefined;
  for (const enc of DOUBLE_BYTE) {
    let split = false;
    let next = 0;
    let i = 0;
    for (; i < buf.length; i++) {
      if (!enc.lead(buf[i]!)) continue;
      if (i + 1 >= buf.length || !enc.trail(buf[i + 1]!)) break;
      i++;
      while (next < suspects.length && suspects[next]! < i) next++;
      if (suspects[next] === i) split = true;
    }
    if (i >= buf.length && split) return enc.name;
  }
  return undefined;
}
