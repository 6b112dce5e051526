import { closeSync, fstatSync } from "node:fs";
import { AgentError, defineTool, z } from "../../core/index.js";
import { replaceFile } from "./_atomic-replace.js";
import { editBytes, type Edit } from "./_byte-edit.js";
import { encodingLabel } from "./_encoding.js";
import { fileWrite } from "./_files.js";
import { judgedTarget, openFile, readOpen } from "./_open-inside.js";

/** The edited text and the number of replacements; throws when the edit cannot be made as asked. */
function applyEdit(text: string, edit: Edit): { updated: string; count: number } {
  const { parts, count } = editBytes(Buffer.from(text, "utf8"), edit);
  return { updated: Buffer.concat(parts).toString("utf8"), count };
}

/** The edited text, or undefined when the edit would fail (the gate then treats a package.json as changed). */
function tryEdit(text: string | undefined, edit: Edit): string | undefined {
  if (text === undefined) return undefined;
  try {
    return applyEdit(text, edit).updated;
  } catch {
    return undefined;
  }
}

export const editFileTool = defineTool({
  name: "edit_file",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Edit", "MultiEdit"],
  description:
    "Replace an exact string in a file. old_string must occur exactly once (include surrounding lines to make it unique), " +
    "or set replace_all to replace every occurrence.",
  risk: "write",
  input: z.object({
    path: z.string().min(1).describe("File path, relative to the project root"),
    old_string: z.string().min(1).describe("The exact text to replace, whitespace included"),
    new_string: z.string().describe("The replacement text"),
    replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
  }),
  permissionSubject: (i) => i.path,
  subjectKind: "path",
  // For protected files (the agent's config, .claude/, .git/…): a package.json only when its agent key changes.
  writes: (edit, { workspace }) => fileWrite(workspace, edit.path, (current) => tryEdit(current, edit)),
  async run(edit, { workspace }) {
    const { path: p, old_string, new_string } = edit;
    if (old_string === new_string) throw new Error("old_string and new_string are identical; nothing to change");
    const file = judgedTarget(workspace, edit, p);
    let fd: number;
    try {
      fd = openFile(file, p, true);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof AgentError) throw err;
      throw new Error(code === "ENOENT" ? `${p} does not exist; use write_file to create it` : `cannot read ${p}: ${(err as Error).message}`);
    }
    let read: { buf: Buffer; dev: number; ino: number };
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new Error(`${p} is not a regular file; edit_file edits text files only`);
      // Read through the verified descriptor; the replace below renames over this very file (same inode) or refuses.
      read = { buf: await readOpen(fd), dev: st.dev, ino: st.ino };
    } finally {
      closeSync(fd);
    }
    const { parts, count, encoding } = editBytes(read.buf, edit);
    await replaceFile(file, p, parts, { expect: read });
    const how = encoding === "utf8" ? "" : ` (${encoding === "bytes" ? "ASCII in a file that is not UTF-8; every other byte kept" : encodingLabel(encoding)})`;
    return `Edited ${workspace.relative(file)}: ${count} replacement${count === 1 ? "" : "s"}${how}`;
  },
});
