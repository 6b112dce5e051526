/**
 * The lines `offset`..`offset+limit-1` of an open file, read as a stream of chunks: lines before the window
 * are skipped as they pass, a line is kept only up to a cap, and after the window the count goes on only
 * for a bounded number of bytes. So memory holds what is returned plus a chunk, whatever the file's size
 * (a 1 GiB file read with `limit: 5` reads a few KiB).
 */
import { read as readCb } from "node:fs";
import { promisify } from "node:util";

const readAt = promisify(readCb);
const CHUNK = 64 << 10;
/** After the window, lines are still counted for this many bytes, so a short file gets its total. */
const COUNT_AFTER = 1 << 20;

export interface WindowSpec {
  /** Where the text starts (after a BOM). */
  start: number;
  /** Bytes per code unit: 1 (UTF-8, Latin-1) or 2 (UTF-16); a line break is one unit. */
  unit: 1 | 2;
  /** The line break's bytes. */
  newline: Buffer;
  offset: number;
  limit: number;
  /** Bytes kept of each line; the rest is dropped and the line marked cut. */
  maxLineBytes: number;
}

export interface LineWindow {
  lines: { bytes: Buffer; cut: boolean }[];
  /** The number of lines in the file, when the read reached its end. */
  total: number | undefined;
}

/** The next break at or after `from` that starts on a unit boundary (relative to 0, the chunk's start). */
function nextBreak(chunk: Buffer, newline: Buffer, unit: number, from: number): number {
  for (let i = chunk.indexOf(newline, from); i !== -1; i = chunk.indexOf(newline, i + 1)) if (i % unit === 0) return i;
  return -1;
}

export async function readWindow(fd: number, spec: WindowSpec): Promise<LineWindow> {
  const { unit, newline, offset, limit, maxLineBytes } = spec;
  const end = offset + limit; // first line number past the window
  const lines: LineWindow["lines"] = [];
  let lineNo = 1;
  let parts: Buffer[] = [];
  let kept = 0;
  let cut = false;
  let hasBytes = false; // whether the current line has any byte (a last line without a break counts)
  let position = spec.start;
  let afterWindow = 0;
  let carry = Buffer.alloc(0);
  const inWindow = () => lineNo >= offset && lineNo < end;
  const take = (seg: Buffer) => {
    if (seg.length) hasBytes = true;
    if (!inWindow()) return;
    const room = maxLineBytes - kept;
    if (seg.length > room) cut = true;
    const part = seg.subarray(0, Math.max(0, room));
    if (part.length) parts.push(Buffer.from(part));
    kept += part.length;
  };
  const finishLine = () => {
    if (inWindow()) lines.push({ bytes: Buffer.concat(parts), cut });
    lineNo++;
    parts = [];
    kept = 0;
    cut = false;
    hasBytes = false;
  };
  const buf = Buffer.alloc(CHUNK);
  for (;;) {
    const { bytesRead } = await readAt(fd, buf, 0, CHUNK, position);
    position += bytesRead;
    let chunk = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
    if (bytesRead === 0) {
      if (chunk.length) take(chunk);
      if (hasBytes) finishLine();
      return { lines, total: lineNo - 1 };
    }
    // A UTF-16 unit split across reads waits for its other byte.
    const whole = chunk.length - (chunk.length % unit);
    carry = Buffer.from(chunk.subarray(whole));
    chunk = chunk.subarray(0, whole);
    let from = 0;
    for (let i = nextBreak(chunk, newline, unit, 0); i !== -1; i = nextBreak(chunk, newline, unit, from)) {
      take(chunk.subarray(from, i));
      finishLine();
      from = i + newline.length;
    }
    take(chunk.subarray(from));
    if (lineNo >= end) {
      afterWindow += chunk.length;
      if (afterWindow > COUNT_AFTER) return { lines, total: undefined };
    }
  }
}
