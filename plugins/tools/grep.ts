import { closeSync, fstatSync, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { defineTool, z } from "../../core/index.js";
import { judgedPaths } from "../../core/embed.js";
import { picomatch } from "../../kit/index.js";
import { checkGlob } from "./_files.js";
import { judgedTarget, openFile } from "./_open-inside.js";
import { agentOwnFolder, walkFiles } from "./_walk.js";

const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE = 500;
/** How long a slice of synchronous file reads may hold the event loop. */
const SLICE_MS = 8;

type FileResult = { lines: string[]; matches: number } | "skipped" | undefined;

export const grepTool = defineTool({
  name: "grep",
  // What Claude Code calls it: rules and hooks written for Claude Code map onto it.
  aliases: ["Grep"],
  description:
    "Search file contents with a regular expression (JavaScript syntax). Returns matches as path:line: text. " +
    "Files ignored by .gitignore or .ignore are not searched, nor binary files, files over 5 MB, node_modules, .git and .agent; " +
    "when there are more than max_results matches, the result says how many were left out.",
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
  async run(input, { workspace, signal }) {
    const { pattern, path: target = ".", glob: fileGlob, ignore_case = false, max_results = 200 } = input;
    let re: RegExp;
    try {
      re = new RegExp(pattern, ignore_case ? "i" : "");
    } catch (err) {
      throw new Error(`invalid regular expression: ${(err as Error).message}`);
    }
    // The whole file is searched at once (most files have no match, and most lines of the rest neither);
    // lookarounds may see across a line end in the whole text, so those patterns go line by line.
    const whole = /\(\?<?[=!]/.test(pattern) ? undefined : new RegExp(pattern, ignore_case ? "gim" : "gm");
    const bad = fileGlob ? checkGlob(fileGlob) : undefined;
    if (bad) throw new Error(bad);
    const base = judgedTarget(workspace, input, target, "read");
    const st = await stat(base).catch(() => undefined);
    if (!st) throw new Error(`${target} does not exist`);
    if (agentOwnFolder(workspace, base)) throw new Error(`${target} is inside .agent/, the agent's own files (history, audit log, settings); it is not searched`);
    const include = fileGlob ? picomatch(fileGlob, { dot: true, matchBase: !fileGlob.includes("/") }) : undefined;
    const exclude = judgedPaths(input)?.excludes;
    const files = st.isFile() ? [base] : (await walkFiles({ workspace, base, signal, include, ...(exclude ? { exclude } : {}) })).sort();
    const results: FileResult[] = new Array(files.length);
    // Synchronous reads, in slices with a yield between: for many small files that is several times
    // faster than one promise per file (each a round trip through libuv's thread pool), and the event
    // loop (spinner, Ctrl-C, other calls) still turns every few milliseconds.
    const search = (file: string): FileResult => {
      let fd: number | undefined;
      try {
        // Opened without following a symlink, and checked to be the file the walk found (_open-inside.ts).
        fd = openFile(file, file);
        const st = fstatSync(fd);
        if (!st.isFile()) return undefined;
        if (st.size > MAX_FILE_BYTES) return "skipped";
        const buf = readFileSync(fd);
        if (buf.subarray(0, 8192).includes(0)) return "skipped";
        const text = buf.toString("utf8");
        const rel = workspace.relative(file);
        const lines: string[] = [];
        let matches = 0;
        const take = (n: number, line: string) => {
          matches++;
          if (lines.length < max_results) lines.push(`${rel}:${n}: ${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`);
        };
        if (whole) {
          // Jump from match to match in the whole text; each hit's line is checked on its own (a match
          // that only exists across a line end is not a line's match), then the search goes on after it.
          whole.lastIndex = 0;
          let lineNo = 1;
          let counted = 0;
          for (let m = whole.exec(text); m; m = whole.exec(text)) {
            const start = m.index === 0 ? 0 : text.lastIndexOf("\n", m.index - 1) + 1;
            if (start === text.length && start > 0) break; // after the last newline: no line there
            let end = text.indexOf("\n", m.index);
            if (end < 0) end = text.length;
            for (let i = text.indexOf("\n", counted); i >= 0 && i < start; i = text.indexOf("\n", i + 1)) lineNo++;
            counted = start;
            const line = text.slice(start, end > start && text[end - 1] === "\r" ? end - 1 : end);
            if (re.test(line)) take(lineNo, line);
            if (end >= text.length) break;
            whole.lastIndex = end + 1;
          }
        } else {
          const all = text.split(/\r?\n/);
          if (all.length > 1 && all[all.length - 1] === "") all.pop();
          for (const [i, line] of all.entries()) if (re.test(line)) take(i + 1, line);
        }
        return matches ? { lines, matches } : undefined;
      } catch {
        return undefined; // vanished or unreadable
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    };
    for (let i = 0, sliceStart = performance.now(); i < files.length && !signal.aborted; i++) {
      results[i] = search(files[i]);
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        sliceStart = performance.now();
      }
    }
    const out: string[] = [];
    let total = 0;
    let skipped = 0;
    for (const r of results) {
      if (r === "skipped") skipped++;
      else if (r) {
        total += r.matches;
        for (const l of r.lines) if (out.length < max_results) out.push(l);
      }
    }
    const skippedNote = skipped ? ` (${skipped} binary or large file${skipped === 1 ? "" : "s"} skipped)` : "";
    if (total === 0) return `No matches for /${pattern}/ in ${target}${skippedNote}. Files ignored by .gitignore or .ignore were not searched.`;
    const more = total > out.length ? `\n(${total - out.length} more matches not shown: ${total} in all; narrow the search or raise max_results)` : "";
    return out.join("\n") + more + (skippedNote ? `\n${skippedNote.trim()}` : "");
  },
});
