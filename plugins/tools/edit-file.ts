import { closeSync, fstatSync } from "node:fs";
import { AgentError, defineTool, z } from "../../core/index.js";
import { fileWrite } from "./_files.js";
import { judgedTarget, openFile, readOpen, replaceOpen } from "./_open-inside.js";

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

interface Edit {
  path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** The edited text and the number of replacements; throws when the edit cannot be made as asked. */
function applyEdit(text: string, { path: p, old_string, new_string, replace_all = false }: Edit): { updated: string; count: number } {
  const count = countOccurrences(text, old_string);
  if (count === 0) throw new Error(`old_string was not found in ${p}. Read the file again and copy the text exactly, whitespace included.`);
  if (count > 1 && !replace_all) {
    throw new Error(`old_string occurs ${count} times in ${p}; include more surrounding text to make it unique, or set replace_all: true`);
  }
  // split/join: no `$&` surprises that String.replace would give.
  const updated = replace_all ? text.split(old_string).join(new_string) : text.replace(old_string, () => new_string);
  return { updated, count: replace_all ? count : 1 };
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
    let count: number;
    try {
      if (!fstatSync(fd).isFile()) throw new Error(`${p} is not a regular file; edit_file edits text files only`);
      // Read and written through the one verified descriptor: the file edited is the file read.
      const edited = applyEdit((await readOpen(fd)).toString("utf8"), edit);
      count = edited.count;
      await replaceOpen(fd, edited.updated);
    } finally {
      closeSync(fd);
    }
    return `Edited ${workspace.relative(file)}: ${count} replacement${count === 1 ? "" : "s"}`;
  },
});
