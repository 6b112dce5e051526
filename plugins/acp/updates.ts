/**
 * The host's events as ACP `session/update`s: answer text as message chunks, each gated call as a
 * `tool_call` (its kind from the risk, the file it touches as a location, a diff for an edit) and its
 * end as a `tool_call_update` with the outcome and output.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SessionUpdate, ToolCallContent, ToolKind } from "@agentclientprotocol/sdk";
import type { AgentEvent, Risk } from "../../core/index.js";

const KINDS: Record<Risk, ToolKind> = { read: "read", write: "edit", execute: "execute", network: "fetch" };
const SEARCH = new Set(["grep", "list_files", "tool_search"]);

export function toolKind(name: string, risk: Risk): ToolKind {
  return SEARCH.has(name) ? "search" : KINDS[risk];
}

function inputPath(input: unknown): string | undefined {
  const p = (input as { path?: unknown } | null)?.path;
  return typeof p === "string" ? p : undefined;
}

/** What an edit would change, as ACP shows a diff: the file as it is, and as the call would leave it. */
function diffOf(name: string, input: unknown, cwd: string, editorText?: string): ToolCallContent[] {
  const rel = inputPath(input);
  if (!rel) return [];
  const file = path.resolve(cwd, rel);
  const i = input as { content?: unknown; old_string?: unknown; new_string?: unknown; replace_all?: unknown };
  const old = editorText ?? (existsSync(file) ? safeRead(file) : undefined);
  if (name === "write_file" && typeof i.content === "string") return [{ type: "diff", path: file, oldText: old ?? null, newText: i.content }];
  if (name === "edit_file" && typeof i.old_string === "string" && typeof i.new_string === "string" && old !== undefined) {
    const newText = i.replace_all === true ? old.split(i.old_string).join(i.new_string) : old.replace(i.old_string, () => i.new_string as string);
    return [{ type: "diff", path: file, oldText: old, newText }];
  }
  return [];
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

export function titleOf(name: string, input: unknown): string {
  const i = input as { path?: unknown; command?: unknown; pattern?: unknown } | null;
  const subject = [i?.command, i?.path, i?.pattern].find((v) => typeof v === "string") as string | undefined;
  return subject ? `${name}: ${subject.length > 80 ? `${subject.slice(0, 77)}…` : subject}` : name;
}

/** `editorText`: the editor's text of the file a write names (its unsaved buffer), for the diff. */
export function toUpdate(event: AgentEvent, cwd: string, editorText?: string): SessionUpdate | undefined {
  switch (event.type) {
    case "text_delta":
      return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } };
    case "tool_start": {
      const where = inputPath(event.input);
      return {
        sessionUpdate: "tool_call",
        toolCallId: event.callId,
        title: titleOf(event.name, event.input),
        kind: toolKind(event.name, event.risk),
        status: "pending",
        rawInput: event.input as Record<string, unknown>,
        ...(where ? { locations: [{ path: path.resolve(cwd, where) }] } : {}),
        ...(event.risk === "write" ? { content: diffOf(event.name, event.input, cwd, editorText) } : {}),
      };
    }
    case "permission_decision":
      return event.decision === "allow" ? { sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" } : undefined;
    case "tool_end":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: event.callId,
        status: event.outcome === "ok" ? "completed" : "failed",
        ...(event.error ? { content: [{ type: "content", content: { type: "text", text: event.error } }] } : {}),
      };
    default:
      return undefined;
  }
}
