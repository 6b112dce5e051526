import { closeSync } from "node:fs";
import { defineTool, z } from "../../core/index.js";
import { fileWrite } from "./_files.js";
import { createFile, judgedTarget, replaceOpen } from "./_open-inside.js";

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
  async run(input, { workspace }) {
    const { path: p, content } = input;
    const file = judgedTarget(workspace, input, p);
    // Created through the verified descriptor of its folder (missing folders too): see _open-inside.ts.
    const { fd, existed: before } = createFile(file, p);
    try {
      await replaceOpen(fd, content);
    } finally {
      closeSync(fd);
    }
    const bytes = Buffer.byteLength(content);
    return `${before ? "Overwrote" : "Created"} ${workspace.relative(file)} (${bytes} bytes)`;
  },
});
