import { closeSync, fstatSync, readSync } from "node:fs";
import { defineTool, z } from "../../core/index.js";
import { bomOf, decodeUtf16, isUtf8 } from "./_encoding.js";
import { looksBinary } from "./_files.js";
import { readWindow, type LineWindow } from "./_line-window.js";
import { judgedTarget, openFile } from "./_open-inside.js";

const MAX_LINE = 2000;
/** Enough bytes for MAX_LINE characters in any encoding here (4 bytes a character at most). */
const MAX_LINE_BYTES = MAX_LINE * 4;

type TextKind = "utf8" | "utf16le" | "utf16be";

/** The file's text encoding by its BOM, and where the text starts. */
function textKind(fd: number): { kind: TextKind; start: number } {
  const head = Buffer.alloc(3);
  const n = readSync(fd, head, 0, 3, 0);
  const { encoding, bomLength } = bomOf(head.subarray(0, n));
  return { kind: encoding === "utf16le" || encoding === "utf16be" ? encoding : "utf8", start: bomLength };
}

/** The window's lines as text, and the note on the encoding when it is not plain UTF-8. */
function decodeLines(window: LineWindow, kind: TextKind): { lines: string[]; note: string } {
  const raw = window.lines;
  if (kind !== "utf8") {
    const label = kind === "utf16le" ? "UTF-16 LE" : "UTF-16 BE";
    return { lines: raw.map((l) => decodeUtf16(l.bytes.subarray(0, l.bytes.length - (l.bytes.length % 2)), kind === "utf16be")), note: `(read as ${label}, by its BOM)` };
  }
  // A line capped mid-character is still UTF-8; only a bad byte makes the window Latin-1.
  const utf8 = raw.every((l) => isUtf8(l.bytes, l.cut));
  if (utf8) return { lines: raw.map((l) => l.bytes.toString("utf8")), note: "" };
  return { lines: raw.map((l) => l.bytes.toString("latin1")), note: "(read as Latin-1: not valid UTF-8)" };
}

function showLine(line: string, cut: boolean): string {
  if (line.endsWith("\r")) line = line.slice(0, -1);
  return line.length > MAX_LINE || cut ? `${line.slice(0, MAX_LINE)}… (line cut at ${MAX_LINE} characters)` : line;
}

function sizeLabel(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(1)} GiB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}

export const readFileTool = defineTool({
  name: "read_file",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Read"],
  description:
    "Read a text file in the workspace. Returns lines prefixed with their line numbers. " +
    "Use offset and limit to read part of a long file.",
  risk: "read",
  input: z.object({
    path: z.string().min(1).describe("File path, relative to the project root"),
    offset: z.number().int().min(1).optional().describe("First line to read (1-based)"),
    limit: z.number().int().min(1).max(100_000).optional().describe("Number of lines to read (default 2000)"),
  }),
  permissionSubject: (i) => i.path,
  subjectKind: "path",
  async run(input, { workspace }) {
    const { path: p, offset = 1, limit = 2000 } = input;
    const file = judgedTarget(workspace, input, p, "read");
    let fd: number;
    try {
      fd = openFile(file, p);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") throw new Error(`${p} does not exist`);
      throw err;
    }
    let window: LineWindow;
    let kind: TextKind;
    let size: number;
    try {
      const st = fstatSync(fd);
      size = st.size;
      if (st.isDirectory()) throw new Error(`${p} is a directory; use list_files to see its contents`);
      if (!st.isFile()) throw new Error(`${p} is not a regular file (a FIFO, socket or device); read_file reads text files only`);
      const text = textKind(fd);
      kind = text.kind;
      // UTF-16 is full of NUL bytes: only a file without a UTF-16 BOM is judged binary by them.
      if (kind === "utf8" && looksBinary(fd)) throw new Error(`${p} looks like a binary file (${st.size} bytes); read_file reads text only`);
      const [newline, unit] = kind === "utf8" ? [Buffer.from("\n"), 1 as const] : [Buffer.from(kind === "utf16le" ? [0x0a, 0] : [0, 0x0a]), 2 as const];
      window = await readWindow(fd, { start: text.start, unit, newline, offset, limit, maxLineBytes: MAX_LINE_BYTES });
    } finally {
      closeSync(fd);
    }
    const { total } = window;
    if (!window.lines.length) {
      if (total === 0) return `(${p} is empty)`;
      throw new Error(`${p} has ${total} lines; offset ${offset} is past the end`);
    }
    const { lines, note } = decodeLines(window, kind);
    const crlf = lines.some((l) => l.endsWith("\r"));
    const end = offset + lines.length - 1;
    const width = String(end).length;
    const body = lines.map((l, i) => `${String(offset + i).padStart(width)}\t${showLine(l, window.lines[i]!.cut)}`).join("\n");
    const notes = [note, crlf ? "(lines end in CRLF, not shown; edit_file keeps them)" : ""].filter(Boolean);
    const more =
      total === undefined
        ? `(lines ${offset}-${end} of a ${sizeLabel(size)} file, more follow; use offset ${end + 1} to read on)`
        : end < total
          ? `(lines ${offset}-${end} of ${total}; use offset ${end + 1} to read on)`
          : "";
    return [body, ...notes, more].filter(Boolean).join("\n");
  },
});
