/**
 * The stream of what happens in a session, for renderers, loggers and telemetry, and how it is emitted.
 * This is the user-facing layer; it is unrelated to the MCP transport.
 */
import type { SyncHook } from "tapable";
import { errorMessage } from "../../kit/errors.js";
import { freezeCopy } from "../../kit/freeze.js";
import type { CallAgentInfo, CallOutcome, Risk } from "../types.js";

/**
 * Why a run stopped: the model finished (`end_turn`), the turn limit was hit (`max_turns`), the model's
 * answer was cut at its output token limit (`max_tokens`), the user cancelled (`aborted`), a
 * model failure ended it (`error`), or a plugin stopped it (`stopped`: a `userPromptSubmit` handler
 * blocked the prompt, or a plugin called `ctx.stopRun`).
 */
export type StopReason = "end_turn" | "max_turns" | "max_tokens" | "aborted" | "error" | "stopped";

export type AgentEvent =
  | { type: "session_start"; sessionId: string; model?: string; cwd: string; tools: number }
  | { type: "user_message"; text: string }
  /** A model request is about to be sent (turn counts from 1 within a run). */
  | { type: "turn_start"; turn: number; model: string }
  | { type: "text_delta"; text: string }
  | { type: "assistant_message"; text: string; toolCalls: { id: string; name: string; input: unknown }[] }
  /** `caller`: who asked for the call when not this host's loop or CLI (`CallOptions.caller`); `agent`: the subagent that makes the call (absent for the main conversation's calls). */
  | { type: "tool_start"; callId: string; name: string; input: unknown; risk: Risk; source: string; caller?: string; agent?: CallAgentInfo }
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
      /** The permission decision and what made it (a rule, the mode, the user); absent when the call ended before one. */
      decision?: "allow" | "deny";
      by?: string;
      agent?: CallAgentInfo;
    }
  /** Token usage of one model turn, and the totals of the run so far. */
  | {
      type: "usage";
      inputTokens: number;
      outputTokens: number;
      totalInputTokens: number;
      totalOutputTokens: number;
      cacheReadTokens?: number;
      cacheWriteTokens?: number;
    }
  /** A model request failed with a retryable error and will be sent again after `delayMs`. */
  | { type: "retry"; attempt: number; maxAttempts: number; delayMs: number; code: string; message: string }
  | { type: "notice"; level: "info" | "warn" | "error"; source: string; message: string }
  /** A skill's instructions were put into the conversation: by the model (its skill tool), the user (`/<skill>`), or config (`always`). */
  | { type: "skill_loaded"; name: string; source: string; by: "model" | "user" | "always"; path?: string }
  /** The skill catalog did not fit its budget: what was shortened and left out (never silent). */
  | { type: "skills_trimmed"; budget: number; listed: number; shortened: string[]; leftOut: string[] }
  /** A plugin asked to allow more for the rest of the session (e.g. a skill's allowed-tools), and the answer. */
  | { type: "permission_grant"; plugin: string; rules: string[]; reason: string; decision: "allow" | "deny"; by: string }
  /**
   * The conversation was compacted to fit the context window: `trigger` manual (`/compact`) or auto (the
   * threshold, or `context_length`: the API refused the request as too long); sizes are estimates in tokens.
   */
  | {
      type: "compaction";
      trigger: "manual" | "auto";
      cause: "manual" | "threshold" | "context_length";
      tokensBefore: number;
      tokensAfter: number;
      window: number;
      messagesBefore: number;
      messagesAfter: number;
      /** Messages replaced by the summary (0: only tool results were shortened). */
      summarized: number;
      /** Tool results shortened (head and tail kept). */
      shortened: number;
    }
  /**
   * A subagent (`runDetached`) started, had a model request answered (`turn`: its number in `turns`, that
   * request's `usage`, `durationMs` and `finish`), made a tool call (its own tool_start/tool_end carry
   * `agent` too), or ended; `parentCallId` is the call that started it.
   */
  | {
      type: "subagent";
      phase: "start" | "turn" | "tool" | "end";
      agent: string;
      parentCallId?: string;
      model?: string;
      tool?: { name: string; callId: string; outcome: CallOutcome };
      reason?: StopReason;
      turns?: number;
      usage?: { inputTokens: number; outputTokens: number };
      durationMs?: number;
      error?: { code: string; message: string };
      /** `turn`: how the model's answer ended (it asked for tools, it finished, or it hit its output limit). */
      finish?: "tool_calls" | "stop" | "length";
    }
  | { type: "error"; code: string; message: string }
  | {
      type: "session_end";
      sessionId: string;
      reason: StopReason;
      turns: number;
      usage: { inputTokens: number; outputTokens: number };
      durationMs: number;
      /** The text of the last assistant message. */
      result: string;
      error?: { code: string; message: string };
      /** With reason `stopped`: which plugin stopped the run, and why. */
      stoppedBy?: { plugin: string; reason: string };
    };

export type AgentEventType = AgentEvent["type"];

/**
 * How the host emits events: the `event` hook, whose last tap hands each event to the listeners of
 * `host.on`. Whoever emits (the gate, the loop) reaches the listeners from here, not back through the host.
 */
export class EventStream {
  private readonly listeners = new Set<(e: AgentEvent) => void>();
  private emitting = 0;

  constructor(private readonly hook: SyncHook<[AgentEvent]>, debug: boolean) {
    hook.tap({ name: "host:listeners", stage: 1000 }, (event) => {
      for (const l of this.listeners) {
        try {
          l(event);
        } catch (err) {
          if (debug) process.stderr.write(`[agent] event listener failed: ${errorMessage(err)}\n`);
        }
      }
    });
  }

  readonly emit = (event: AgentEvent): void => {
    // Guard against an event handler that emits in a loop.
    if (this.emitting > 8) return;
    this.emitting++;
    try {
      // One frozen copy for every listener: none can change what the next one sees.
      this.hook.call(freezeCopy(event));
    } finally {
      this.emitting--;
    }
  };

  /**
   * Whether an event (of `type`, or any) reaches anyone: a listener, or a plugin's tap for every type or
   * for that one (the host's own tap only forwards to listeners).
   */
  readonly listening = (type?: AgentEventType): boolean =>
    this.listeners.size > 0 ||
    this.hook.taps.some((t) => {
      if (t.name === "host:listeners") return false;
      const types = (t as { types?: ReadonlySet<string> }).types;
      return !types || (type !== undefined && types.has(type));
    });

  on(listener: (e: AgentEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
