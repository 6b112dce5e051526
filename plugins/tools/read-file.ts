import { closeSync, fstatSync } from "node:fs";
import { defineTool, z } from "../../core/index.js";
import { looksBinary } from "./_files.js";
import { judgedTarget, openFile, readOpen } from "./_open-inside.js";

const MAX_LINE = 2000;

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
    let text: string;
    try {
      const st = fstatSync(fd);
      if (st.isDirectory()) throw new Error(`${p} is a directory; use list_files to see its contents`);
      if (!st.isFile()) throw new Error(`${p} is not a regular file (a FIFO, socket or device); read_file reads text files only`);
      if (looksBinary(fd)) throw new Error(`${p} looks like a binary file (${st.size} bytes); read_file reads text only`);
      text = (await readOpen(fd)).toString("utf8");
    } finally {
      closeSync(fd);
    }
    const lines = text.split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    if (offset > lines.length && !(offset === 1 && lines.length === 0)) {
      throw new Error(`${p} has ${lines.length} lines; offset ${offset} is past the end`);
    }
    const slice = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset + slice.length - 1).length;
    const body = slice
      .map((l, i) => `${String(offset + i).padStart(width)}\t${l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}… (line cut at ${MAX_LINE} characters)` : l}`)
      .join("\n");
    const end = offset + slice.length - 1;
    const more = end < lines.length ? `\n(lines ${offset}-${end} of ${lines.length}; use offset ${end + 1} to read on)` : "";
    return slice.length ? body + more : `(${p} is empty)`;
  },
});
