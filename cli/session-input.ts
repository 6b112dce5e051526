/**
 * What the interactive session adds to what you type: files named with `@path` (read through the gate
 * as read_file, so workspace containment and deny rules apply, and audited), Tab completion of those
 * paths (inside the workspace only), and the output of `!` commands, carried to the model.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Host, Workspace } from "../core/index.js";
import type { Style } from "./render/_style.js";

const MAX_SHELL_OUTPUT = 16_000;
const MAX_COMPLETIONS = 200;

/** The text the model gets for a `!command` the user ran. */
export function shellContext(command: string, output: string): string {
  const cut = output.length > MAX_SHELL_OUTPUT ? `${output.slice(0, MAX_SHELL_OUTPUT)}\n[… ${output.length - MAX_SHELL_OUTPUT} more characters not shown]` : output;
  return `I ran this shell command myself (with !):\n$ ${command}\n${cut.trimEnd()}\n\n`;
}

/** `@path` tokens: at the start or after a space (an e-mail address is not one). */
function mentions(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@][^\s]*)/g)) if (!out.includes(m[1])) out.push(m[1]);
  return out;
}

/** The mentioned path as it exists: as typed, or without trailing punctuation (`see @a.ts,`). */
function existing(workspace: Workspace, token: string): { path: string; dir: boolean } | { error: string } | undefined {
  for (const candidate of [token, token.replace(/[,.;:!?)\]}'"]+$/, "")]) {
    if (!candidate) continue;
    let abs: string;
    try {
      abs = workspace.resolve(candidate, { access: "read" });
    } catch {
      if (existsSync(path.resolve(workspace.root, candidate))) return { error: `@${candidate} is outside the workspace; not attached` };
      continue;
    }
    if (!existsSync(abs)) continue;
    return { path: candidate, dir: statSync(abs).isDirectory() };
  }
  return undefined;
}

/**
 * The prompt with every `@path` that names a file or folder attached after it (files as read_file
 * gives them, folders as list_files does). What cannot be attached is said, and the prompt still goes.
 */
export async function attachFiles(host: Host, text: string, say: (line: string) => void, s: Style): Promise<string> {
  const parts: string[] = [];
  for (const token of mentions(text)) {
    const found = existing(host.workspace, token);
    if (!found) continue;
    if ("error" in found) {
      say(s.yellow(found.error));
      continue;
    }
    const result = found.dir ? await host.tools.call("list_files", { path: found.path }) : await host.tools.call("read_file", { path: found.path });
    if (!result.ok) {
      say(s.yellow(`@${found.path} not attached: ${result.error?.message ?? result.output}`));
      continue;
    }
    const lines = result.output.split("\n").length;
    say(s.gray(`◆ attached ${found.path}${found.dir ? "/" : ""} (${lines} line${lines === 1 ? "" : "s"}${result.truncated ? ", cut to the output limit" : ""})`));
    parts.push(`<attached ${found.dir ? "folder" : "file"}="${found.path}">\n${result.output.trimEnd()}\n</attached>`);
  }
  return parts.length ? `${text}\n\n${parts.join("\n\n")}` : text;
}

/** Completions for a partial path after `@`, relative to the project root; folders end with `/`. */
export function completePath(workspace: Workspace, partial: string): string[] {
  const slash = partial.lastIndexOf("/");
  const dir = slash >= 0 ? partial.slice(0, slash + 1) : "";
  const prefix = partial.slice(slash + 1);
  let abs: string;
  try {
    abs = workspace.resolve(dir || ".", { access: "read" });
  } catch {
    return [];
  }
  let entries: { name: string; dir: boolean }[];
  try {
    entries = readdirSync(abs, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.name.startsWith(prefix) && (prefix.startsWith(".") || !e.name.startsWith(".")))
    .filter((e) => prefix || (e.name !== "node_modules" && e.name !== ".git"))
    .map((e) => `${dir}${e.name}${e.dir ? "/" : ""}`)
    .sort()
    .slice(0, MAX_COMPLETIONS);
}
