/**
 * Compaction: make a conversation fit its context window again. First, tool results far larger than
 * the rest are shortened (head and tail kept, with a line saying how much was cut). If that is not
 * enough (or the user asked, `/compact`), the older turns are summarised by the model into one
 * message (what was done, files touched, decisions, open tasks) and the recent turns are kept
 * verbatim, never splitting a tool call from its result. When is context.ts's (the kernel runs
 * `preCompact` first); this is what the `compact` hook's handler does. The system prompt (project
 * instructions, the skills catalog) is rebuilt for every request, so it survives; skills loaded through
 * the `skill` tool are re-attached by the skills plugin, which hears the `compaction` event.
 */
import type { ModelMessage, ModelRequest } from "../../core/index.js";
import { messageChars, type CompactionRequest, type CompactionResult } from "../../core/embed.js";
import { errorMessage } from "../../kit/index.js";

/** The share of the window kept verbatim as recent turns (the rest is summarised). */
export const KEEP_RECENT_SHARE = 0.3;
/** A tool result longer than this share of the window (and 8 000 characters) is shortened first. */
export const TOOL_RESULT_SHARE = 0.1;
const MIN_TOOL_RESULT_CHARS = 8_000;
/** The first line of the summary message (how a resumed or compacted conversation is recognised). */
export const SUMMARY_MARK = "[Summary of the earlier conversation, written when it was compacted to fit the context window]";

export const SUMMARY_SYSTEM =
  "You summarise a conversation between a user and a coding agent so that the agent can continue the work from the summary alone. Be factual and specific; keep exact file paths, names, commands, error messages and numbers. Do not address the user.";

export const SUMMARY_INSTRUCTIONS = [
  "Write the summary of the conversation above with these sections:",
  "1. Task: what the user asked for, in their words where it matters.",
  "2. Done so far: what was done, in order, and the results (tests run, what passed or failed).",
  "3. Files: every file read, created or changed, with what changed.",
  "4. Decisions: choices made and why, and the user's preferences or constraints.",
  "5. Open: what is left to do, errors not yet solved, the next step.",
].join("\n");

export function shortenText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters cut from the middle of this tool result to fit the context window …]\n${text.slice(text.length - half)}`;
}

/** Shorten, in place, tool results over the limit (new message objects, so the transcript sees the change). */
export function shortenToolResults(messages: ModelMessage[], window: number, keepLast: number, charsPerToken: number): number {
  const limit = Math.max(MIN_TOOL_RESULT_CHARS, Math.floor(window * charsPerToken * TOOL_RESULT_SHARE));
  let n = 0;
  for (let i = 0; i < messages.length - keepLast; i++) {
    const m = messages[i];
    if (m.role !== "tool" || m.content.length <= limit) continue;
    messages[i] = { ...m, content: shortenText(m.content, limit) };
    n++;
  }
  return n;
}

/**
 * Where the recent turns start: the earliest user or assistant message such that what follows fits in
 * `keepChars`, and at least the last turn (a tool message never starts it, so a call keeps its result).
 */
export function splitPoint(messages: readonly ModelMessage[], keepChars: number): number {
  let size = 0;
  let at = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    size += messageChars(messages[i]);
    if (size > keepChars && at < messages.length) break;
    if (messages[i].role !== "tool") at = i;
  }
  // Prefer to start at a prompt: move forward to the next user message if one is close.
  if (at < messages.length && messages[at].role !== "user") {
    const next = messages.findIndex((m, i) => i > at && m.role === "user");
    if (next > 0 && next < messages.length - 1) at = next;
  }
  return at;
}

/** The older part as text for the summary request (no tool blocks: the request carries no tools). */
export function renderForSummary(messages: readonly ModelMessage[], maxChars: number): string {
  const perResult = Math.max(500, Math.floor(maxChars / Math.max(1, messages.length) / 2));
  const parts = messages.map((m) => {
    if (m.role === "user") return `## User\n${m.content}`;
    if (m.role === "tool") return `## Result of ${m.name}${m.isError ? " (error)" : ""}\n${shortenText(m.content, perResult)}`;
    const calls = (m.toolCalls ?? []).map((c) => `(called ${c.name} ${JSON.stringify(c.input ?? {}).slice(0, 2000)})`);
    return `## Assistant\n${[m.content, ...calls].filter(Boolean).join("\n")}`;
  });
  const text = parts.join("\n\n");
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n\n[… ${text.length - 2 * half} characters of the middle of the conversation left out …]\n\n${text.slice(text.length - half)}`;
}

/** Compact the conversation the kernel hands (a copy): the conversation to go on with, and what was done. Never throws. */
export async function compactMessages(c: CompactionRequest): Promise<CompactionResult> {
  const messages = [...c.messages] as ModelMessage[];
  const size = () => c.tokens(messages);
  const result = (o: Partial<CompactionResult>): CompactionResult => ({ ok: false, summarized: 0, shortened: 0, ...o, ...(o.shortened || o.summarized ? { messages } : {}) });

  // 1. Tool results far larger than the rest (the newest message too: it may be what overflowed).
  const cpt = c.charsPerToken;
  const shortened = shortenToolResults(messages, c.window, 0, cpt);
  if (c.trigger === "auto" && !c.force && shortened && size() <= c.targetTokens) return result({ ok: true, shortened });

  // 2. Summarise the older turns.
  let keepChars = Math.floor((c.keepRecentTokens ?? Math.floor(c.window * KEEP_RECENT_SHARE)) * cpt);
  // Asked for, or refused as too long: at most half of the conversation stays verbatim (at least its last turn).
  if (c.trigger === "manual" || c.force) keepChars = Math.min(keepChars, Math.floor(messages.reduce((n, m) => n + messageChars(m), 0) / 2));
  const at = splitPoint(messages, keepChars);
  const older = messages.slice(0, at);
  if (older.length === 0 || (older.length === 1 && older[0].role === "user" && older[0].content.startsWith(SUMMARY_MARK))) {
    return result({ ok: shortened > 0, shortened, reason: shortened ? undefined : "nothing older than the recent turns to summarise" });
  }
  const focus = c.instructions;
  const budget = Math.floor(c.window * cpt * 0.6);
  const request: ModelRequest = {
    model: c.model,
    system: SUMMARY_SYSTEM,
    messages: [
      {
        role: "user",
        content: `<conversation>\n${renderForSummary(older, budget)}\n</conversation>\n\n${SUMMARY_INSTRUCTIONS}${focus.length ? `\n\nAlso keep, as the user asked: ${focus.join("\n")}` : ""}`,
      },
    ],
    tools: [],
  };
  let summary: string;
  try {
    summary = await c.summarize(request);
  } catch (err) {
    return result({ shortened, reason: `the summary request failed: ${errorMessage(err)}` });
  }
  if (!summary) return result({ shortened, reason: "the model returned an empty summary" });
  messages.splice(0, at, { role: "user", content: `${SUMMARY_MARK}\n\n${summary}` });
  return result({ ok: true, shortened, summarized: older.length, summary });
}
