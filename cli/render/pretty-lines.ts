/** The finished lines the pretty renderer prints on stderr: a tool's outcome, notices, the usage line. */
import type { AgentEvent } from "../../core/index.js";
import { clip, firstLine, formatDuration, formatTokens } from "./_format.js";
import type { Style } from "./_style.js";
import type { RunningTool } from "./status-line.js";
import { clipWords, wrapText } from "./text-width.js";

/** `✓ read_file src/a.ts 12ms`, or the outcome and the first line of the error under it. */
export function toolLine(e: Extract<AgentEvent, { type: "tool_end" }>, r: RunningTool | undefined, s: Style, width: number): string {
  // A subagent's call is indented under its task call and names the agent.
  const by = e.agent ? `${s.gray(`  ${e.agent.name} ›`)} ` : "";
  const what = `${by}${s.bold(e.name)}${r?.detail ? ` ${s.dim(r.detail)}` : ""}`;
  const time = s.gray(formatDuration(r?.asked ? performance.now() - r.started : e.durationMs));
  const cut = e.truncated ? s.yellow(" (output cut)") : "";
  switch (e.outcome) {
    case "ok":
      return `${s.green("✓")} ${what} ${time}${cut}`;
    case "denied":
      return `${s.yellow("✗")} ${what} ${s.yellow("denied")} ${time}\n  ${s.dim(clipWords(firstLine(e.error ?? ""), width - 2))}`;
    case "aborted":
      return `${s.gray("■")} ${what} ${s.gray("cancelled")} ${time}`;
    default: {
      const label = e.outcome === "error" ? "failed" : e.outcome === "invalid" ? "invalid input" : e.outcome;
      return `${s.red("✗")} ${what} ${s.red(label)} ${time}\n  ${s.dim(clipWords(firstLine(e.error ?? ""), width - 2))}`;
    }
  }
}

/** The usage line at the end of a run, saying why it stopped when it did not simply finish. */
export function endLine(e: Extract<AgentEvent, { type: "session_end" }>, s: Style, maxTurns: number | undefined): string | undefined {
  const stats = [
    `${e.turns} turn${e.turns === 1 ? "" : "s"}`,
    `${formatTokens(e.usage.inputTokens)} in / ${formatTokens(e.usage.outputTokens)} out tokens`,
    formatDuration(e.durationMs),
  ].join(" · ");
  switch (e.reason) {
    case "end_turn":
      return s.gray(`── ${stats}`);
    case "max_turns":
      return s.yellow(`── stopped: reached the turn limit${maxTurns ? ` of ${maxTurns}` : ""} (raise it with --max-turns) · ${stats}`);
    case "max_tokens":
      return s.yellow(`── stopped: the answer hit the model's output token limit · ${stats}`);
    case "aborted":
      return s.yellow(`── cancelled · ${stats}`);
    case "error":
      return s.red(`── failed · ${stats}`);
    case "stopped":
      return s.yellow(`── stopped${e.stoppedBy ? ` by plugin ${e.stoppedBy.plugin}` : ""} · ${stats}`);
  }
}

/** The line for a notice (a skill loaded, a grant, a compaction, a retry, an error); undefined for other events. */
export function noticeLine(e: AgentEvent, s: Style, width: number): string | undefined {
  switch (e.type) {
    case "skill_loaded":
      return s.cyan(`◆ skill ${e.name} loaded${e.by === "model" ? "" : e.by === "user" ? " (you asked)" : " (always on)"} · ${e.source}`);
    case "skills_trimmed": {
      if (!e.shortened.length && !e.leftOut.length) return undefined;
      const parts = [e.shortened.length && `${e.shortened.length} shortened`, e.leftOut.length && `${e.leftOut.length} left out (${clip(e.leftOut.join(", "), 60)})`].filter(Boolean);
      return s.yellow(`◆ skill catalog over its ${e.budget}-character budget: ${parts.join(", ")} · agent skills shows which`);
    }
    case "permission_grant":
      return (e.decision === "allow" ? s.green : s.yellow)(`◆ ${e.plugin}: ${e.rules.join(", ")} ${e.decision === "allow" ? "allowed" : "not allowed"} for this session (${e.reason}; ${e.by})`);
    case "compaction": {
      const what = [e.summarized && `${e.summarized} messages summarised`, e.shortened && `${e.shortened} tool results shortened`].filter(Boolean).join(", ");
      const why = e.cause === "context_length" ? "the model refused the request as too long" : e.cause === "threshold" ? `near the ${e.window.toLocaleString("en-US")}-token window` : "you asked";
      return s.cyan(`◆ conversation compacted (${why}): ${what}; about ${e.tokensBefore.toLocaleString("en-US")} → ${e.tokensAfter.toLocaleString("en-US")} tokens`);
    }
    case "retry":
      // The whole reason, wrapped at words: a clipped "rate limit exc…" says nothing.
      return s.yellow(wrapText(`↻ ${firstLine(e.message)} · retrying in ${formatDuration(e.delayMs)} (attempt ${e.attempt + 1} of ${e.maxAttempts})`, width, "  ").join("\n"));
    case "error":
      return s.red(`✗ ${e.message}`);
    default:
      return undefined;
  }
}
