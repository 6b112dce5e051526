/**
 * The terminal renderer: the model's text as it streams (stdout), one line per tool call with a
 * spinner while it runs and its outcome and time after (stderr), and a usage line at the end.
 * Without a terminal it draws no spinner and no colours; when stdout is not a terminal only the
 * final answer goes there, so `agent run -p ... > answer.md` gets just the answer.
 *
 * What it draws on stderr (tool lines, progress, errors) is redacted as the audit log is, piped or not;
 * on a terminal, control characters from the model, tools and servers are shown (`\xNN`), not obeyed.
 */
import { type AgentEvent } from "../../core/index.js";
import { redactString, summarize } from "../../kit/index.js";
import { summarizeInput } from "./_format.js";
import { createStyle, movesCursor, printable, useColor, type Output, type Style } from "./_style.js";
import { AnswerText } from "./answer-text.js";
import { endLine, noticeLine, toolLine } from "./pretty-lines.js";
import { StatusLine } from "./status-line.js";

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

export type PrettyRenderer = ReturnType<typeof createPrettyRenderer>;

export function createPrettyRenderer(options: PrettyOptions) {
  const { out, err } = options;
  const s: Style = createStyle(options.color ?? useColor(err));
  const showSummary = options.summary ?? true;
  const width = () => Math.max(20, (err.columns || 100) - 1);
  // The spinner and the answer share one terminal: each makes way for the other.
  // A terminal without cursor controls (TERM=dumb) gets plain lines: no spinner redrawn in place.
  const status = new StatusLine({ err, style: s, live: movesCursor(err), width, columns: () => err.columns || 100, beforeDraw: () => answer.breakLine() });
  const answer = new AnswerText({ out, streaming: options.streamText ?? !!out.isTTY, markdown: !!options.markdown, color: options.color, beforeWrite: () => status.clear() });

  // A resize: the live part (the block being written, the spinner) is erased and drawn at the new width.
  const onResize = () => {
    status.resized();
    answer.resized();
  };
  // One terminal behind both streams: one of them tells.
  const resizing = [out, err].find((o) => movesCursor(o) && typeof o.on === "function");
  resizing?.on!("resize", onResize);

  /** A finished line on stderr, above the spinner. */
  function line(text: string): void {
    status.clear();
    answer.breakLine();
    err.write(`${text}\n`);
    status.draw();
  }

  function end(e: Extract<AgentEvent, { type: "session_end" }>): void {
    status.thinkingSince = undefined;
    status.running.clear();
    status.clear();
    status.stopTimer();
    answer.breakLine();
    answer.end(e.result);
    const summary = showSummary ? endLine(e, s, options.maxTurns) : undefined;
    if (summary) err.write(`${summary}\n`);
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
          status.thinkingSince = performance.now();
          status.draw();
          break;
        case "text_delta":
          if (status.thinkingSince !== undefined) {
            status.thinkingSince = undefined;
            status.clear();
            status.stopTimer();
          }
          answer.write(e.text);
          break;
        case "assistant_message":
          status.thinkingSince = undefined;
          answer.breakLine();
          status.draw();
          break;
        case "tool_start":
          status.running.set(e.callId, { name: e.name, detail: describeInput(e.input, safe), started: performance.now() });
          status.draw();
          break;
        case "tool_progress": {
          const r = status.running.get(e.callId);
          if (r) r.progress = e.message ?? (e.total ? `${e.progress}/${e.total}` : String(e.progress));
          break;
        }
        case "permission_request":
          // The question is printed by the permission prompt; keep the spinner off it.
          status.clear();
          answer.breakLine();
          status.paused = true;
          break;
        case "permission_decision": {
          const r = status.running.get(e.callId);
          if (r) Object.assign(r, { asked: true, started: performance.now() });
          status.paused = false;
          status.draw();
          break;
        }
        case "tool_end": {
          const r = status.running.get(e.callId);
          status.running.delete(e.callId);
          line(toolLine(e, r, s, width()));
          break;
        }
        case "session_end":
          end(e);
          break;
        default: {
          const notice = noticeLine(e, s, width());
          if (notice !== undefined) line(notice);
        }
      }
    },
    /** Stop drawing and release the spinner's timer. */
    dispose(): void {
      resizing?.off?.("resize", onResize);
      status.clear();
      status.stopTimer();
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
