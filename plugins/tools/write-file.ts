import { defineTool, z } from "../../core/index.js";
import { replaceFile } from "./_atomic-replace.js";
import { fileWrite } from "./_files.js";
import { judgedTarget } from "./_open-inside.js";

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
    // A temp file beside it, renamed over it through its folder's verified descriptor: see _atomic-replace.ts.
    const bytes = Buffer.from(content, "utf8");
    const { existed: before } = await replaceFile(file, p, [bytes]);
    return `${before ? "Overwrote" : "Created"} ${workspace.relative(file)} (${bytes.length} bytes)`;
  },
});
