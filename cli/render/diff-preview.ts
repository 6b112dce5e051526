/**
 * What a permission question shows for a call: the whole command line for `run_command`, a coloured
 * unified diff (the `diff` package) of what `edit_file` / `write_file` would change, computed from the
 * file as it is now, and the full input for any other tool. Long previews are cut with a count of what
 * is hidden, and the whole of it can be asked for (`d`).
 */
import { structuredPatch } from "diff";
import { printable, type Style } from "./_style.js";

/** Reads a file the way the tool will (inside the workspace), or says why it cannot. */
export type ReadCurrent = (path: string) => { text: string } | { missing: true } | { error: string };

export interface Preview {
  lines: string[];
  /** Lines left out of `lines` (the whole preview is `full`). */
  hidden: number;
  full: string[];
}

const MAX_LINES = 60;

function cut(full: string[], max = MAX_LINES): Preview {
  return full.length <= max ? { lines: full, hidden: 0, full } : { lines: full.slice(0, max), hidden: full.length - max, full };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The preview for one call; `read` is undefined when no workspace is at hand (then no diff). */
export function previewCall(toolName: string, input: unknown, s: Style, read?: ReadCurrent): Preview {
  const obj = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  if (toolName === "run_command" && str(obj.command) !== undefined) {
    const lines = printable(str(obj.command)!).split("\n").map((l, i) => `${i === 0 ? s.gray("$") : " "} ${l}`);
    if (str(obj.cwd)) lines.push(s.gray(`in ${printable(str(obj.cwd)!)}`));
    return cut(lines);
  }
  if ((toolName === "edit_file" || toolName === "write_file") && str(obj.path) !== undefined && read) {
    return cut(fileDiff(toolName, obj, s, read(str(obj.path)!)));
  }
  const json = JSON.stringify(input, null, 2) ?? String(input);
  return cut(json === "{}" ? [] : json.split("\n").map((l) => s.gray(l)));
}

function fileDiff(toolName: string, obj: Record<string, unknown>, s: Style, current: ReturnType<ReadCurrent>): string[] {
  const file = printable(str(obj.path)!);
  if ("error" in current) return [s.yellow(current.error)];
  const before = "text" in current ? current.text : "";
  let after: string;
  if (toolName === "write_file") {
    after = str(obj.content) ?? "";
    if ("missing" in current) return [s.green(`new file, ${countLines(after)} line${countLines(after) === 1 ? "" : "s"}`), ...colour(patchLines("", after, file), s)];
  } else {
    if ("missing" in current) return [s.yellow(`${file} does not exist: the edit will fail`)];
    const oldString = str(obj.old_string) ?? "";
    const newString = str(obj.new_string) ?? "";
    const count = oldString ? before.split(oldString).length - 1 : 0;
    if (count === 0) return [s.yellow(`old_string is not in ${file}: the edit will fail`)];
    if (count > 1 && obj.replace_all !== true) return [s.yellow(`old_string occurs ${count} times in ${file}: the edit will fail (not unique)`)];
    after = obj.replace_all === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
  }
  if (before === after) return [s.gray("no change to the file's content")];
  return colour(patchLines(before, after, file), s);
}

function countLines(text: string): number {
  return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Unified diff lines, headers first (`--- a`, `+++ b`, `@@ … @@`). */
export function patchLines(before: string, after: string, file: string): string[] {
  const patch = structuredPatch(file, file, before, after, "", "", { context: 3 });
  const out = [`--- ${before === "" ? "/dev/null" : file}`, `+++ ${file}`];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) out.push(l);
  }
  return out;
}

function colour(lines: string[], s: Style): string[] {
  return lines.map((raw, i) => {
    const l = printable(raw);
    if (i < 2) return s.bold(l);
    if (l.startsWith("@@")) return s.cyan(l);
    if (l.startsWith("+")) return s.green(l);
    if (l.startsWith("-")) return s.red(l);
    if (l.startsWith("\\")) return s.gray(l);
    return l;
  });
}
