import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { defineTool, z } from "../../core/index.js";
import { fileWrite } from "./_files.js";

export const writeFileTool = defineTool({
  name: "write_file",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Write"],
  description: "Create or overwrite a file in the workspace with the given content. Parent folders are created as needed.",
  risk: "write",
  input: z.object({
    path: z.string().min(1).describe("File path, relative to the project root"),
    content: z.string().describe("The full new content of the file"),
  }),
  permissionSubject: (i) => i.path,
  subjectKind: "path",
  // For protected files (the agent's config, .claude/, .git/…): a package.json only when its agent key changes.
  writes: ({ path: p, content }, { workspace }) => fileWrite(workspace, p, () => content),
  async run({ path: p, content }, { workspace }) {
    const file = workspace.resolve(p);
    const before = await stat(file).catch(() => undefined);
    if (before?.isDirectory()) throw new Error(`${p} is a directory`);
    await mkdir(path.dirname(file), { recursive: true });
    // Resolve again: creating parents must not have opened a way out (e.g. a symlinked parent).
    workspace.resolve(p);
    await writeFile(file, content, "utf8");
    const bytes = Buffer.byteLength(content);
    return `${before ? "Overwrote" : "Created"} ${workspace.relative(file)} (${bytes} bytes)`;
  },
});
