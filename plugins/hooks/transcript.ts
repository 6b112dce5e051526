/**
 * `transcript_path`: the conversation so far as JSONL, one message a line, in the shape Claude Code's
 * transcripts have (`{ type, message: { role, content } }`, tool calls as `tool_use` blocks, results as
 * `tool_result` blocks, the built-in tools under Claude Code's names and fields as hook stdin has them:
 * `Bash` with `command`, `Read` with an absolute `file_path`), so a script that reads the last message or
 * looks for its last `Bash` call works. Written only when a hook is
 * about to run (appended; rewritten when the conversation was cleared), under `.agent/transcripts/`.
 */
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { type ModelMessage, type PluginContext } from "../../core/index.js";
import { SECRET_FILE_MODE, writeFileAtomic } from "../../kit/index.js";
import { claudeName, toClaudeInput } from "./tool-map.js";

export class Transcript {
  private written = 0;
  private writtenFor = "";

  constructor(private readonly ctx: PluginContext) {}

  /** The file of the current session (a resumed session has its own id). */
  get file(): string {
    return this.fileFor(this.ctx.host.sessionId);
  }

  /** The transcript of session `id` (an ended one keeps its file as it was last written). */
  fileFor(id: string): string {
    return path.join(this.ctx.workspace.root, ".agent", "transcripts", `${id}.jsonl`);
  }

  /** Bring the file up to date; returns its path. A write that fails leaves the old file (hooks still run). */
  update(): string {
    const messages = this.ctx.host.session.messages;
    const file = this.file;
    try {
      if (this.writtenFor !== file || messages.length < this.written || !existsSync(file)) {
        this.writtenFor = file;
        mkdirSync(path.dirname(file), { recursive: true });
        // The conversation may hold secrets: 0600 whatever the umask, an older 0644 file included.
        writeFileAtomic(file, "", SECRET_FILE_MODE);
        this.written = 0;
      }
      if (messages.length > this.written) {
        const sessionId = this.ctx.host.sessionId;
        const cwd = this.ctx.workspace.root;
        const asClaude = (c: ToolCallLike) => claudeCall(c, this.ctx, cwd);
        appendFileSync(file, messages.slice(this.written).map((m) => `${JSON.stringify({ ...line(m, asClaude), sessionId, cwd })}\n`).join(""));
        this.written = messages.length;
      }
    } catch (err) {
      this.ctx.log.debug(`transcript ${file} not written: ${(err as Error).message}`);
    }
    return file;
  }
}

interface ToolCallLike {
  id: string;
  name: string;
  input: unknown;
}

/** A call as Claude Code would have recorded it: a built-in tool under its Claude Code name and fields. */
function claudeCall(c: ToolCallLike, ctx: PluginContext, root: string): { name: string; input: unknown } {
  const tool = ctx.host.tools.get(c.name);
  return tool ? { name: claudeName(tool), input: toClaudeInput(tool, c.input, root) } : { name: c.name, input: c.input };
}

function line(m: ModelMessage, asClaude: (c: ToolCallLike) => { name: string; input: unknown }): Record<string, unknown> {
  if (m.role === "user") return { type: "user", message: { role: "user", content: m.content } };
  if (m.role === "assistant") {
    const blocks: unknown[] = m.content ? [{ type: "text", text: m.content }] : [];
    for (const c of m.toolCalls ?? []) blocks.push({ type: "tool_use", id: c.id, ...asClaude(c) });
    return { type: "assistant", message: { role: "assistant", content: blocks } };
  }
  return { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) }] } };
}
