/**
 * A command body becomes a prompt in one left-to-right pass: text gets its argument placeholders,
 * `` !`cmd` `` (and a ```` ```! ```` block) runs `cmd` as the `run_command` tool and `@path` reads the file
 * with `read_file`, both through the gate (permission rules, workspace containment, output cap, audit).
 * Only the body is scanned: what the user typed and what a command or file returned is inserted as it
 * is, so an argument holding `` !`rm -rf x` `` or `@secret` is text, never run or read.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { PluginHost, ToolResult } from "../../core/index.js";
import { substitute, type ArgumentValues } from "./arguments.js";

/** Claude Code's two forms: a fenced block opened by ```! and an inline !`…` after whitespace or at the start. */
const TOKEN = /```!\s*\n?(?<block>[\s\S]*?)\n?```|(?<=\s|^)!`(?<inline>[^`]+)`|(?<=\s|^)@(?<mention>"[^"\n]+"|[^\s"]+)/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'`]+$/;

export interface ExpandOptions {
  host: PluginHost;
  signal: AbortSignal;
  args: ArgumentValues;
  /** Why `` !`cmd` `` may not run (the command is a file of a folder the user has not trusted): shown in its place. */
  noShell?: string;
}

export interface Expanded {
  prompt: string;
  /** Whether any argument placeholder occurred. */
  used: boolean;
}

/** What a command printed: run_command's `structured` stdout (and stderr, marked), else the whole (capped) text. */
function commandOutput(r: ToolResult): string {
  const st = r.structured as { stdout?: unknown; stderr?: unknown } | undefined;
  // The gate caps `output`, not `structured`: a cut result is taken as the gate capped it (without run_command's header).
  if (r.truncated) return r.output.replace(/^exit code 0 \(\d+ ms\)\n--- stdout ---\n/, "");
  if (!st || typeof st.stdout !== "string") return r.output;
  const out = st.stdout.replace(/\n$/, "");
  const err = typeof st.stderr === "string" && st.stderr ? `stderr:\n${st.stderr.replace(/\n$/, "")}` : undefined;
  return [out, err].filter((x) => x !== undefined && x !== "").join("\n");
}

function notRun(r: ToolResult): boolean {
  return r.outcome === "denied" || r.outcome === "invalid" || r.error?.code === "E_TOOL_NOT_FOUND";
}

async function runBang(command: string, o: ExpandOptions): Promise<string> {
  if (o.noShell) return `[!\`${command}\` was not run: ${o.noShell}]`;
  const r = await o.host.tools.call("run_command", { command }, { signal: o.signal });
  if (r.ok) return commandOutput(r);
  return `[!\`${command}\` ${notRun(r) ? "was not run" : "failed"}: ${r.output}]`;
}

/** The path a mention names, if it exists (relative paths only: `a@b.c` and `@/abs` stay text). */
function mentionedPath(raw: string, root: string): { rel: string; rest: string; dir: boolean } | undefined {
  const quoted = raw.startsWith('"');
  const candidates = quoted ? [[raw.slice(1, -1), ""]] : [[raw, ""], [raw.replace(TRAILING_PUNCTUATION, ""), raw.match(TRAILING_PUNCTUATION)?.[0] ?? ""]];
  for (const [rel, rest] of candidates) {
    if (!rel || path.isAbsolute(rel) || rel.startsWith("~")) continue;
    try {
      const st = statSync(path.resolve(root, rel));
      return { rel, rest, dir: st.isDirectory() };
    } catch {
      // not a file: try the next reading, else it stays text
    }
  }
  return undefined;
}

async function readMention(m: { rel: string; dir: boolean }, o: ExpandOptions): Promise<string> {
  const r = m.dir ? await o.host.tools.call("list_files", { path: m.rel }, { signal: o.signal }) : await o.host.tools.call("read_file", { path: m.rel }, { signal: o.signal });
  if (!r.ok) return `[@${m.rel} was not read: ${r.output}]`;
  const tag = m.dir ? "directory" : "file";
  return `<${tag} path=${JSON.stringify(m.rel)}>\n${r.output}\n</${tag}>`;
}

export async function expandBody(body: string, o: ExpandOptions): Promise<Expanded> {
  let used = false;
  const sub = (text: string, mode: "text" | "shell") => {
    const s = substitute(text, o.args, mode);
    used ||= s.used;
    return s.text;
  };
  let prompt = "";
  let last = 0;
  for (const m of body.matchAll(TOKEN)) {
    if (o.signal.aborted) throw new Error("cancelled");
    prompt += sub(body.slice(last, m.index), "text");
    last = m.index + m[0].length;
    const { block, inline, mention } = m.groups!;
    const command = block ?? inline;
    if (command !== undefined) {
      prompt += command.trim() ? await runBang(sub(command.trim(), "shell"), o) : m[0];
      continue;
    }
    const found = mentionedPath(mention!, o.host.workspace.root);
    prompt += found ? (await readMention(found, o)) + found.rest : sub(m[0], "text");
  }
  if (o.signal.aborted) throw new Error("cancelled");
  prompt += sub(body.slice(last), "text");
  return { prompt, used };
}
