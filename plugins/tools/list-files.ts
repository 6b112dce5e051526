import { stat } from "node:fs/promises";
import { defineTool, z } from "../../core/index.js";
import { DEFAULT_IGNORES, checkGlob } from "./_files.js";

export const listFilesTool = defineTool({
  name: "list_files",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Glob", "LS"],
  description:
    'List files in the workspace matching a glob pattern (e.g. "src/**/*.ts"). node_modules and .git are skipped unless the pattern names them; symlinks are not followed. ' +
    "Results are sorted paths relative to the project root.",
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
    const namesIgnored = /node_modules|\.git(\/|$)/.test(pattern);
    const { glob } = await import("tinyglobby");
    const found = await glob(pattern, {
      cwd: root,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: namesIgnored ? [] : DEFAULT_IGNORES,
      absolute: true,
      signal,
    });
    const inside = found.flatMap((f) => {
      try {
        workspace.resolve(f, { access: "read" });
        return [workspace.relative(f)];
      } catch {
        return []; // a symlink leading outside: not listed
      }
    });
    inside.sort();
    if (inside.length === 0) return `No files match ${pattern} in ${dir}.`;
    const shown = inside.slice(0, limit);
    return shown.join("\n") + (inside.length > limit ? `\n(${inside.length - limit} more not shown; narrow the pattern or raise limit)` : "");
  },
});
