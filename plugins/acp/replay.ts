/** `session/load`: the saved conversation sent back to the editor as it happened (ACP replays history). */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { AcpSession } from "./session.js";

export async function replay(s: AcpSession): Promise<void> {
  for (const m of s.host.session.messages) {
    const updates: SessionUpdate[] = [];
    if (m.role === "user") updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: m.content } });
    else if (m.role === "assistant") {
      if (m.content) updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: m.content } });
      for (const c of m.toolCalls ?? []) updates.push({ sessionUpdate: "tool_call", toolCallId: c.id, title: c.name, status: "completed", rawInput: c.input as Record<string, unknown> });
    } else updates.push({ sessionUpdate: "tool_call_update", toolCallId: m.toolCallId, status: m.isError ? "failed" : "completed", content: [{ type: "content", content: { type: "text", text: m.content } }] });
    for (const update of updates) await s.client.notify("session/update", { sessionId: s.id, update });
  }
}
