import { stat } from "node:fs/promises";
import path from "node:path";
import { defineTool, z } from "../../core/index.js";
import { judgedPaths } from "../../core/embed.js";
import { picomatch } from "../../kit/index.js";
import { checkGlob } from "./_files.js";
import { judgedTarget } from "./_open-inside.js";
import { agentOwnFolder, walkFiles } from "./_walk.js";

export const listFilesTool = defineTool({
  name: "list_files",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Glob", "LS"],
  description:
    'List files in the workspace matching a glob pattern (e.g. "src/**/*.ts"). Files ignored by .gitignore or .ignore are left out, ' +
    "and so are node_modules (unless the pattern names it), .git and .agent; symlinked folders are not followed. " +
    "Results are sorted paths relative to the project root; when there are more than limit, the result says how many were left out.",
  risk: "read",
  input: z.object({
    pattern: z.string().min(1).optional().describe('Glob pattern (default "**/*")'),
    path: z.string().min(1).optional().describe("Folder to search in, relative to the project root (default: the root)"),
    limit: z.number().int().min(1).max(100_000).optional().describe("Most paths to return (default 1000)"),
  }),
  // Where the walk starts: the folder and the pattern's fixed part (`secrets/**` is judged as `secrets`).
  permissionSubject: (i) => walkStart(i.path ?? ".", i.pattern ?? "**/*"),
  subjectKind: "path",
  async run(input, { workspace, signal }) {
    const { pattern = "**/*", path: dir = ".", limit = 1000 } = input;
    const bad = checkGlob(pattern);
    if (bad) throw new Error(bad);
    const root = workspace.resolve(dir, { access: "read" });
    const st = await stat(root).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${dir} is not a folder`);
    const start = walkStart(dir, pattern);
    // Resolved and judged like any path: a symlinked folder in the pattern leads where it leads, or is refused.
    const from = judgedTarget(workspace, input, start, "read");
    if (agentOwnFolder(workspace, root) || agentOwnFolder(workspace, from)) {
      throw new Error(`${start} is inside .agent/, the agent's own files (history, audit log, settings); it is not listed`);
    }
    const { fixed, glob } = splitPattern(pattern);
    const fromSt = await stat(from).catch(() => undefined);
    if (!fromSt?.isDirectory()) return `No files match ${pattern} in ${dir}.`;
    const match = picomatch(fixed ? glob || "**" : pattern, { dot: true });
    const exclude = judgedPaths(input)?.excludes;
    const found = await walkFiles({ workspace, base: from, signal, withNodeModules: /node_modules/.test(pattern), include: match, ...(exclude ? { exclude } : {}) });
    const inside = found.map((f) => workspace.relative(f)).sort();
    if (inside.length === 0) return `No files match ${pattern} in ${dir} (files ignored by .gitignore or .ignore are not listed).`;
    const shown = inside.slice(0, limit);
    return shown.join("\n") + (inside.length > limit ? `\n(${inside.length - limit} more not shown: ${inside.length} files match; narrow the pattern or raise limit)` : "");
  },
});

/** A pattern's fixed leading folders (where its walk starts) and the glob matched from there. */
function splitPattern(pattern: string): { fixed: string; glob: string } {
  const scan = picomatch.scan(pattern);
  // A plain path (`src/a.ts`): its folder, and the name as the pattern.
  if (!scan.isGlob) return { fixed: path.posix.dirname(pattern) === "." ? "" : path.posix.dirname(pattern), glob: path.posix.basename(pattern) };
  return { fixed: scan.base, glob: scan.glob };
}

/** The folder a listing walks: `dir` joined with the pattern's fixed part. */
function walkStart(dir: string, pattern: string): string {
  const { fixed } = splitPattern(pattern);
  return fixed ? path.posix.join(dir, fixed) : dir;
}
