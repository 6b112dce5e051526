/**
 * The stream of what happens in a session, for renderers, loggers and telemetry.
 * This is the user-facing layer; it is unrelated to the MCP transport.
 */
import type { CallOutcome, Risk } from "./types.js";

export type StopReason = "end_turn" | "max_turns" | "aborted" | "error";

export type AgentEvent =
  | { type: "session_start"; sessionId: string; model?: string; cwd: string; tools: number }
  | { type: "user_message"; text: string }
  | { type: "text_delta"; text: string }
  | { type: "assistant_message"; text: string; toolCalls: { id: string; name: string; input: unknown }[] }
  | { type: "tool_start"; callId: string; name: string; input: unknown; risk: Risk; source: string }
  | { type: "tool_progress"; callId: string; name: string; progress: number; total?: number; message?: string }
  | { type: "permission_request"; callId: string; name: string; subject?: string; suggestedRule: string }
  | { type: "permission_decision"; callId: string; name: string; decision: "allow" | "deny"; by: string }
  | {
      type: "tool_end";
      callId: string;
      name: string;
      outcome: CallOutcome;
      durationMs: number;
      outputBytes: number;
      truncated: boolean;
      error?: string;
    }
  | { type: "usage"; inputTokens: number; outputTokens: number; totalInputTokens: number; totalOutputTokens: number }
  | { type: "notice"; level: "info" | "warn" | "error"; source: string; message: string }
  | { type: "error"; code: string; message: string }
  | {
      type: "session_end";
      sessionId: string;
      reason: StopReason;
      turns: number;
      usage: { inputTokens: number; outputTokens: number };
      durationMs: number;
    };

export type AgentEventType = AgentEvent["type"];
