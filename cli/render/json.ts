/** `--output-format json`: nothing while the run goes, then one JSON object describing how it ended. */
import type { AgentEvent } from "../../core/index.js";
import { printableJson, type Output } from "./_style.js";

export interface JsonResult {
  type: "result";
  ok: boolean;
  reason: string;
  /** The text of the last assistant message. */
  result: string;
  sessionId: string;
  model?: string;
  turns: number;
  toolCalls: { name: string; outcome: string; durationMs: number }[];
  usage: { inputTokens: number; outputTokens: number };
  durationMs: number;
  error?: { code: string; message: string };
  /** With reason `stopped`: the plugin that stopped the run (a hook that blocked the prompt), and why. */
  stoppedBy?: { plugin: string; reason: string };
}

export function createJsonRenderer(out: Output) {
  let model: string | undefined;
  const toolCalls: JsonResult["toolCalls"] = [];
  let end: Extract<AgentEvent, { type: "session_end" }> | undefined;
  return {
    handle(event: AgentEvent): void {
      if (event.type === "session_start") model = event.model;
      else if (event.type === "tool_end") toolCalls.push({ name: event.name, outcome: event.outcome, durationMs: Math.round(event.durationMs) });
      else if (event.type === "session_end") end = event;
    },
    finish(): void {
      if (!end) return;
      const result: JsonResult = {
        type: "result",
        ok: end.reason === "end_turn",
        reason: end.reason,
        result: end.result,
        sessionId: end.sessionId,
        model,
        turns: end.turns,
        toolCalls,
        usage: end.usage,
        durationMs: Math.round(end.durationMs),
        ...(end.error ? { error: end.error } : {}),
        ...(end.stoppedBy ? { stoppedBy: end.stoppedBy } : {}),
      };
      // JSON escapes ESC and the C0 controls; on a terminal the C1 controls and bidi overrides too.
      const json = JSON.stringify(result, null, 2);
      out.write(`${out.isTTY ? printableJson(json) : json}\n`);
    },
  };
}
