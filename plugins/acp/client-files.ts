/**
 * The editor's files (ACP `fs/read_text_file` / `fs/write_text_file`), when the client offers them: what
 * `read_file` shows is the editor's text of the file (an unsaved buffer included), `edit_file` edits that
 * text, and what `write_file` / `edit_file` wrote is written through the editor, so its open buffer holds
 * it. Built on the session's hooks around the built-in tools: the gate judges the path and asks as for
 * any call, the audit records it, and the tool still does its work on disk; the editor's text takes the
 * place of the disk's before (`edit_file`) and after (`read_file`, the writes).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { AgentContext } from "@agentclientprotocol/sdk";
import type { BeforeToolCallDecision, ToolCallInfo, ToolResult, Workspace } from "../../core/index.js";

/** What the client said it offers (`clientCapabilities.fs`). */
export interface ClientFs {
  readTextFile?: boolean;
  writeTextFile?: boolean;
}

const MAX_LINE = 2000;

export class ClientFiles {
  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: () => string,
    private readonly workspace: () => Workspace,
    readonly fs: ClientFs,
  ) {}

  get active(): boolean {
    return this.fs.readTextFile === true || this.fs.writeTextFile === true;
  }

  /** The file's absolute path (as ACP wants it), or undefined for one outside the workspace (the tool refuses it). */
  private target(input: unknown, access: "read" | "write"): string | undefined {
    const p = (input as { path?: unknown } | null)?.path;
    if (typeof p !== "string") return undefined;
    try {
      return this.workspace().resolve(p, { access });
    } catch {
      return undefined;
    }
  }

  /** The editor's text of the file a call names, if it has one. */
  async textOf(input: unknown): Promise<string | undefined> {
    const file = this.target(input, "read");
    return file === undefined ? undefined : this.read(file);
  }

  private async read(file: string): Promise<string | undefined> {
    try {
      return (await this.client.request("fs/read_text_file", { sessionId: this.sessionId(), path: file })).content;
    } catch {
      return undefined;
    }
  }

  /** Before `edit_file` runs: the editor's text, when it differs from the disk's, is what the edit applies to. */
  readonly before = async (call: ToolCallInfo): Promise<BeforeToolCallDecision | undefined> => {
    if (call.tool.name !== "edit_file" || !this.fs.readTextFile) return undefined;
    const file = this.target(call.input, "write");
    if (!file) return undefined;
    const text = await this.read(file);
    if (text !== undefined && text !== safeRead(file)) writeFileSync(file, text);
    return undefined;
  };

  /** After the tool: `read_file` shows the editor's text; a write goes to the editor. */
  readonly after = async (result: ToolResult, call: ToolCallInfo): Promise<ToolResult> => {
    const name = call.tool.name;
    if (name === "read_file" && this.fs.readTextFile) return this.readThrough(result, call.input as { path: string; offset?: number; limit?: number });
    if ((name === "write_file" || name === "edit_file") && this.fs.writeTextFile && result.ok) {
      const file = this.target(call.input, "write");
      const content = file === undefined ? undefined : safeRead(file);
      if (file && content !== undefined) {
        try {
          await this.client.request("fs/write_text_file", { sessionId: this.sessionId(), path: file, content });
        } catch {
          // The disk has it; the editor reloads from there.
        }
      }
    }
    return result;
  };

  /** The read's output from the editor's text, numbered as read_file numbers lines; a refused read stays refused. */
  private async readThrough(result: ToolResult, input: { path: string; offset?: number; limit?: number }): Promise<ToolResult> {
    // Only a read that worked, or failed for a file the disk does not have (a new, unsaved buffer).
    if (!result.ok && !/does not exist/.test(result.output)) return result;
    const file = this.target(input, "read");
    const text = file === undefined ? undefined : await this.read(file);
    if (text === undefined) return result;
    const output = numbered(input.path, text, input.offset ?? 1, input.limit ?? 2000, text !== safeRead(file!));
    return output.error ? { ...result, ok: false, outcome: "error", output: output.text, error: { code: "E_TOOL_FAILED", message: output.text } } : { ok: true, outcome: "ok", output: output.text, durationMs: result.durationMs, callId: result.callId };
  }
}

/** Text as read_file shows it: numbered lines from `offset`, at most `limit`, and where to read on. */
export function numbered(p: string, text: string, offset: number, limit: number, unsaved: boolean): { text: string; error?: boolean } {
  if (text === "") return { text: `(${p} is empty)` };
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  const total = all.length;
  const lines = all.slice(offset - 1, offset - 1 + limit);
  if (!lines.length) return { text: `${p} has ${total} lines; offset ${offset} is past the end`, error: true };
  const end = offset + lines.length - 1;
  const width = String(end).length;
  const crlf = lines.some((l) => l.endsWith("\r"));
  const body = lines.map((l, i) => {
    const line = l.endsWith("\r") ? l.slice(0, -1) : l;
    return `${String(offset + i).padStart(width)}\t${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… (line cut at ${MAX_LINE} characters)` : line}`;
  });
  const notes = [unsaved ? "(as open in the editor, with changes not saved to disk)" : "", crlf ? "(lines end in CRLF, not shown; edit_file keeps them)" : "", end < total ? `(lines ${offset}-${end} of ${total}; use offset ${end + 1} to read on)` : ""];
  return { text: [body.join("\n"), ...notes].filter(Boolean).join("\n") };
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
