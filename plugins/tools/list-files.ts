import { stat } from "node:fs/promises";
import path from "node:path";
import { defineTool, picomatch, z } from "../../core/index.js";
import { checkGlob } from "./_files.js";
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
  permissionSubject: (i) => i.path ?? ".",
  subjectKind: "path",
  async run({ pattern = "**/*", path: dir = ".", limit = 1000 }, { workspace, signal }) {
    const bad = checkGlob(pattern);
    if (bad) throw new Error(bad);
    const root = workspace.resolve(dir, { access: "read" });
    const st = await stat(root).catch(() => undefined);
    if (!st?.isDirectory()) throw new Error(`${dir} is not a folder`);
    if (agentOwnFolder(workspace, root)) throw new Error(`${dir} is inside .agent/, the agent's own files (history, audit log, settings); it is not listed`);
    // Start where the pattern's fixed part points (`src/**/*.ts` walks src/ only).
    const scan = picomatch.scan(pattern);
    // A plain path (`src/a.ts`): its folder, and the name as the pattern.
    const fixed = scan.isGlob ? scan.base : path.posix.dirname(pattern) === "." ? "" : path.posix.dirname(pattern);
    const glob = scan.isGlob ? scan.glob : path.posix.basename(pattern);
    const from = fixed ? path.join(root, fixed) : root;
    const fromSt = await stat(from).catch(() => undefined);
    if (!fromSt?.isDirectory()) return `No files match ${pattern} in ${dir}.`;
    const match = picomatch(fixed ? glob || "**" : pattern, { dot: true });
    const found = await walkFiles({ workspace, base: from, signal, withNodeModules: /node_modules/.test(pattern), include: match });
    const inside = found.map((f) => workspace.relative(f)).sort();
    if (inside.length === 0) return `No files match ${pattern} in ${dir} (files ignored by .gitignore or .ignore are not listed).`;
    const shown = inside.slice(0, limit);
    return shown.join("\n") + (inside.length > limit ? `\n(${inside.length - limit} more not shown: ${inside.length} files match; narrow the pattern or raise limit)` : "");
  },
});
