import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { defineTool, z } from "../../core/index.js";
import { DEFAULT_IGNORES, checkGlob, looksBinary } from "./_files.js";

const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE = 500;

export const grepTool = defineTool({
  name: "grep",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Grep"],
  description:
    "Search file contents with a regular expression (JavaScript syntax). Returns matches as path:line: text. " +
    "Binary files, files over 5 MB, node_modules and .git are skipped.",
  risk: "read",
  input: z.object({
    pattern: z.string().min(1).describe("Regular expression to search for"),
    path: z.string().min(1).optional().describe("File or folder to search, relative to the project root (default: the root)"),
    glob: z.string().min(1).optional().describe('Only search files matching this glob (default "**/*")'),
    ignore_case: z.boolean().optional(),
    max_results: z.number().int().min(1).max(10_000).optional().describe("Most matching lines to return (default 200)"),
  }),
  permissionSubject: (i) => i.path ?? ".",
  subjectKind: "path",
  async run({ pattern, path: target = ".", glob: fileGlob = "**/*", ignore_case = false, max_results = 200 }, { workspace, signal }) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, ignore_case ? "i" : "");
    } catch (err) {
      throw new Error(`invalid regular expression: ${(err as Error).message}`);
    }
    const bad = checkGlob(fileGlob);
    if (bad) throw new Error(bad);
    const base = workspace.resolve(target, { access: "read" });
    const st = await stat(base).catch(() => undefined);
    if (!st) throw new Error(`${target} does not exist`);
    const { glob } = await import("tinyglobby");
    const files = st.isFile()
      ? [base]
      : (await glob(fileGlob, { cwd: base, dot: true, onlyFiles: true, followSymbolicLinks: false, ignore: DEFAULT_IGNORES, absolute: true, signal })).sort();
    const out: string[] = [];
    let total = 0;
    let skipped = 0;
    for (const f of files) {
      if (signal.aborted) break;
      let real: string;
      try {
        real = workspace.resolve(f, { access: "read" });
      } catch {
        continue; // symlink out of the workspace
      }
      const fst = await stat(real).catch(() => undefined);
      if (!fst?.isFile() || fst.size > MAX_FILE_BYTES || (await looksBinary(real))) {
        skipped++;
        continue;
      }
      const rel = workspace.relative(real);
      const lines = createInterface({ input: createReadStream(real, { encoding: "utf8" }), crlfDelay: Infinity });
      let n = 0;
      for await (const line of lines) {
        n++;
        if (re.test(line)) {
          total++;
          if (out.length < max_results) out.push(`${rel}:${n}: ${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
        }
      }
    }
    if (total === 0) return `No matches for /${pattern}/ in ${target}${skipped ? ` (${skipped} binary or large files skipped)` : ""}.`;
    const more = total > out.length ? `\n(${total - out.length} more matches not shown; narrow the search or raise max_results)` : "";
    return out.join("\n") + more;
  },
});
