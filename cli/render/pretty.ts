/**
 * The terminal renderer: the model's text as it streams (stdout), one line per tool call with a
 * spinner while it runs and its outcome and time after (stderr), and a usage line at the end.
 * Without a terminal it draws no spinner and no colours; when stdout is not a terminal only the
 * final answer goes there, so `agent run -p ... > answer.md` gets just the answer.
 *
 * What it draws on stderr (tool lines, progress, errors) is redacted as the audit log is, piped or not;
 * on a terminal, control characters from the model, tools and servers are shown (`\xNN`), not obeyed.
 */
import { redactString, summarize, type AgentEvent } from "../../core/index.js";
import { clip, firstLine, formatDuration, formatTokens, summarizeInput } from "./_format.js";
import { createStyle, printable, useColor, type Output, type Style } from "./_style.js";
import { createMarkdownStream } from "./markdown.js";
import { clipWords, wrapText } from "./text-width.js";

export interface PrettyOptions {
  /** Where the model's text goes. */
  out: Output;
  /** Where tool lines, the spinner, errors and the usage line go. */
  err: Output;
  /** Stream text as it arrives (default: when `out` is a terminal); otherwise print the final answer at the end. */
  streamText?: boolean;
  /** Force colours on or off (default: per stream, see `useColor`). */
  color?: boolean;
  /** Print the usage line when a run ends (default true). */
  summary?: boolean;
  /** The turn limit in force, for the "stopped" message. */
  maxTurns?: number;
  /** Render streamed text as Markdown, block by block (for a terminal; default false). */
  markdown?: boolean;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPIN_MS = 80;

interface Running {
  name: string;
  detail: string;
  /** When the tool started running (reset after a permission question, so waiting for the user does not count). */
  started: number;
  asked?: boolean;
  progress?: string;
}

export type PrettyRenderer = ReturnType<typeof createPrettyRenderer>;

export function createPrettyRenderer(options: PrettyOptions) {
  const { out, err } = options;
  const streamText = options.streamText ?? !!out.isTTY;
  const live = !!err.isTTY;
  const s: Style = createStyle(options.color ?? useColor(err));
  const showSummary = options.summary ?? true;

  const running = new Map<string, Running>();
  let thinkingSince: number | undefined;
  let outAtLineStart = true;
  let statusShown = false;
  let paused = false;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;

  const width = () => Math.max(20, (err.columns || 100) - 1);
  const md = options.markdown && streamText
    ? createMarkdownStream(
        (text) => {
          clearStatus();
          out.write(text);
          outAtLineStart = true;
        },
        () => ({ width: Math.max(20, Math.min(out.columns || 100, 120) - 1), style: createStyle(options.color ?? useColor(out)) }),
        out.isTTY ? { preview: { columns: () => out.columns || 80, rows: () => (out as { rows?: number }).rows || 24 } } : {},
      )
    : undefined;

  /** Text and tool lines share one terminal: start tool lines on a fresh line (after the Markdown held back). */
  function breakTextLine(): void {
    md?.flush();
    if (streamText && !outAtLineStart) {
      out.write("\n");
      outAtLineStart = true;
    }
  }

  function clearStatus(): void {
    if (statusShown) {
      err.write("\r\x1b[K");
      statusShown = false;
    }
  }

  function statusLabel(now: number): string | undefined {
    if (running.size === 1) {
      const [r] = running.values();
      const secs = Math.floor((now - r.started) / 1000);
      return `${r.name}${r.detail ? ` ${r.detail}` : ""}${r.progress ? ` · ${r.progress}` : ""}${secs ? ` (${secs}s)` : ""}`;
    }
    if (running.size > 1) return `${running.size} tools running: ${[...running.values()].map((r) => r.name).join(", ")}`;
    if (thinkingSince !== undefined) {
      const secs = Math.floor((now - thinkingSince) / 1000);
      return `Thinking…${secs ? ` (${secs}s)` : ""}`;
    }
    return undefined;
  }

  function drawStatus(): void {
    if (!live || paused) return;
    const label = statusLabel(performance.now());
    if (!label) {
      clearStatus();
      stopTimer();
      return;
    }
    breakTextLine();
    err.write(`\r\x1b[K${s.cyan(FRAMES[frame++ % FRAMES.length])} ${s.dim(clipWords(label, width() - 2))}`);
    statusShown = true;
    if (!timer) {
      timer = setInterval(drawStatus, SPIN_MS);
      timer.unref();
    }
  }

  function stopTimer(): void {
    if (timer) clearInterval(timer);
    timer = undefined;
  }

  /** A finished line on stderr, above the spinner. */
  function line(text: string): void {
    clearStatus();
    breakTextLine();
    err.write(`${text}\n`);
    drawStatus();
  }

  function toolLine(e: Extract<AgentEvent, { type: "tool_end" }>, r: Running | undefined): string {
    const what = `${s.bold(e.name)}${r?.detail ? ` ${s.dim(r.detail)}` : ""}`;
    const time = s.gray(formatDuration(r?.asked ? performance.now() - r.started : e.durationMs));
    const cut = e.truncated ? s.yellow(" (output cut)") : "";
    switch (e.outcome) {
      case "ok":
        return `${s.green("✓")} ${what} ${time}${cut}`;
      case "denied":
        return `${s.yellow("✗")} ${what} ${s.yellow("denied")} ${time}\n  ${s.dim(clip(firstLine(e.error ?? ""), width() - 2))}`;
      case "aborted":
        return `${s.gray("■")} ${what} ${s.gray("cancelled")} ${time}`;
      default: {
        const label = e.outcome === "error" ? "failed" : e.outcome === "invalid" ? "invalid input" : e.outcome;
        return `${s.red("✗")} ${what} ${s.red(label)} ${time}\n  ${s.dim(clip(firstLine(e.error ?? ""), width() - 2))}`;
      }
    }
  }

  function endLine(e: Extract<AgentEvent, { type: "session_end" }>): string | undefined {
    const stats = [
      `${e.turns} turn${e.turns === 1 ? "" : "s"}`,
      `${formatTokens(e.usage.inputTokens)} in / ${formatTokens(e.usage.outputTokens)} out tokens`,
      formatDuration(e.durationMs),
    ].join(" · ");
    switch (e.reason) {
      case "end_turn":
        return s.gray(`── ${stats}`);
      case "max_turns":
        return s.yellow(`── stopped: reached the turn limit${options.maxTurns ? ` of ${options.maxTurns}` : ""} (raise it with --max-turns) · ${stats}`);
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

  // On a terminal, what the model, a tool or a server wrote cannot move the cursor or rewrite lines
  // (piped to a file, the answer stays as the model wrote it). What goes to stderr is redacted too.
  const safe = !!err.isTTY;
  return {
    handle(event: AgentEvent): void {
      const toOut = event.type === "text_delta" || event.type === "session_end";
      const toErr = TO_ERR.has(event.type);
      const e = toErr || (toOut ? out.isTTY : safe) ? shownEvent(event, toErr, toOut ? !!out.isTTY : safe) : event;
      switch (e.type) {
        case "turn_start":
          thinkingSince = performance.now();
          drawStatus();
          break;
        case "text_delta":
          if (thinkingSince !== undefined) {
            thinkingSince = undefined;
            clearStatus();
            stopTimer();
          }
          if (md) {
            clearStatus();
            md.push(e.text);
          } else if (streamText) {
            clearStatus();
            out.write(e.text);
            outAtLineStart = e.text.endsWith("\n");
          }
          break;
        case "assistant_message":
          thinkingSince = undefined;
          breakTextLine();
          drawStatus();
          break;
        case "tool_start":
          running.set(e.callId, { name: e.name, detail: describeInput(e.input, safe), started: performance.now() });
          drawStatus();
          break;
        case "tool_progress": {
          const r = running.get(e.callId);
          if (r) r.progress = e.message ?? (e.total ? `${e.progress}/${e.total}` : String(e.progress));
          break;
        }
        case "permission_request":
          // The question is printed by the permission prompt; keep the spinner off it.
          clearStatus();
          breakTextLine();
          paused = true;
          break;
        case "permission_decision": {
          const r = running.get(e.callId);
          if (r) Object.assign(r, { asked: true, started: performance.now() });
          paused = false;
          drawStatus();
          break;
        }
        case "tool_end": {
          const r = running.get(e.callId);
          running.delete(e.callId);
          line(toolLine(e, r));
          break;
        }
        case "skill_loaded":
          line(s.cyan(`◆ skill ${e.name} loaded${e.by === "model" ? "" : e.by === "user" ? " (you asked)" : " (always on)"} · ${e.source}`));
          break;
        case "skills_trimmed":
          if (e.shortened.length || e.leftOut.length) {
            const parts = [e.shortened.length && `${e.shortened.length} shortened`, e.leftOut.length && `${e.leftOut.length} left out (${clip(e.leftOut.join(", "), 60)})`].filter(Boolean);
            line(s.yellow(`◆ skill catalog over its ${e.budget}-character budget: ${parts.join(", ")} · agent skills shows which`));
          }
          break;
        case "permission_grant":
          line((e.decision === "allow" ? s.green : s.yellow)(`◆ ${e.plugin}: ${e.rules.join(", ")} ${e.decision === "allow" ? "allowed" : "not allowed"} for this session (${e.reason}; ${e.by})`));
          break;
        case "compaction": {
          const what = [e.summarized && `${e.summarized} messages summarised`, e.shortened && `${e.shortened} tool results shortened`].filter(Boolean).join(", ");
          const why = e.cause === "context_length" ? "the model refused the request as too long" : e.cause === "threshold" ? `near the ${e.window.toLocaleString("en-US")}-token window` : "you asked";
          line(s.cyan(`◆ conversation compacted (${why}): ${what}; about ${e.tokensBefore.toLocaleString("en-US")} → ${e.tokensAfter.toLocaleString("en-US")} tokens`));
          break;
        }
        case "retry":
          // The whole reason, wrapped at words: a clipped "rate limit exc…" says nothing.
          line(s.yellow(wrapText(`↻ ${firstLine(e.message)} · retrying in ${formatDuration(e.delayMs)} (attempt ${e.attempt + 1} of ${e.maxAttempts})`, width(), "  ").join("\n")));
          break;
        case "error":
          line(s.red(`✗ ${e.message}`));
          break;
        case "session_end": {
          thinkingSince = undefined;
          running.clear();
          clearStatus();
          stopTimer();
          breakTextLine();
          md?.reset();
          if (!streamText && e.result) out.write(e.result.endsWith("\n") ? e.result : `${e.result}\n`);
          const summary = showSummary ? endLine(e) : undefined;
          if (summary) err.write(`${summary}\n`);
          break;
        }
      }
    },
    /** Stop drawing and release the spinner's timer. */
    dispose(): void {
      clearStatus();
      stopTimer();
    },
  };
}

/** Events drawn on stderr, whose strings are redacted (the answer on stdout is the model's, as written). */
const TO_ERR = new Set<AgentEvent["type"]>(["tool_start", "tool_progress", "tool_end", "skill_loaded", "skills_trimmed", "permission_grant", "retry", "error"]);

/**
 * The event with its top-level strings and lists of strings (text, messages, names, errors) redacted
 * (`redact`) and made printable (`terminal`). The call id stays as it is: it pairs a call's events.
 */
function shownEvent(e: AgentEvent, redact: boolean, terminal: boolean): AgentEvent {
  const clean = (v: string) => {
    const r = redact ? redactString(v) : v;
    return terminal ? printable(r) : r;
  };
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(e)) {
    if (k === "type" || k === "callId") continue;
    let p: unknown = v;
    if (typeof v === "string") p = clean(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
      const list = v.map(clean);
      if (list.some((x, i) => x !== v[i])) p = list;
    }
    if (p !== v) (copy ??= { ...e })[k] = p;
  }
  return (copy ?? e) as AgentEvent;
}

/**
 * What a tool line says about the call: its most telling argument. Redacted as the audit log has it
 * (secret keys, secret shapes, env values, tokens in URLs) before it is cut, since a secret cut in
 * half is no longer recognised; on a terminal, printable.
 */
function describeInput(input: unknown, terminal: boolean): string {
  const detail = summarizeInput(summarize(input, { maxString: 1000, maxTotal: 100_000 }));
  return terminal ? printable(detail) : detail;
}
