/**
 * Built-in tools: files (read, write, edit, list, grep) and the shell. Every path goes through the
 * workspace resolver, so nothing here can reach outside the project root and configured roots.
 */
import { definePlugin } from "../../core/index.js";
import { editFileTool } from "./edit-file.js";
import { grepTool } from "./grep.js";
import { listFilesTool } from "./list-files.js";
import { readFileTool } from "./read-file.js";
import { isReadOnlyLine } from "./_read-only.js";
import { runCommandTool } from "./run-command.js";
import { writeFileTool } from "./write-file.js";

export default definePlugin({
  name: "tools",
  tools: [readFileTool, writeFileTool, editFileTool, listFilesTool, grepTool],
  setup(ctx) {
    // In a folder the user trusted, git's read-only commands run without a question. Not in one nobody
    // trusted: its .git/config could make `git diff` run a program of its own (diff.external, core.fsmonitor).
    ctx.tools.add(ctx.trust.trusted ? { ...runCommandTool, readOnly: isReadOnlyLine } : runCommandTool);
  },
});
