/**
 * A subagent's conversation, stored with the session as Claude Code stores it: a sidechain file next to
 * the main transcript (`.agent/sessions/<session>/subagents/agent-<name>-<call id>.jsonl`), one JSON line
 * per message, user-only. It is for reading later, never sent to the parent's model.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { ModelMessage } from "../../core/index.js";

export interface Sidechain {
  readonly file: string;
  add(message: ModelMessage): void;
}

/** The sidechain of one `task` call; undefined when the session keeps no transcript. */
export function openSidechain(transcriptPath: string | undefined, head: { agent: string; parentCallId: string; description: string; model: string | undefined }): Sidechain | undefined {
  if (!transcriptPath) return undefined;
  const dir = path.join(transcriptPath.replace(/\.jsonl$/, ""), "subagents");
  const safeId = head.parentCallId.replace(/[^\w.-]/g, "_");
  const file = path.join(dir, `agent-${head.agent}-${safeId}.jsonl`);
  let broken = false;
  const write = (record: object) => {
    if (broken) return;
    try {
      appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    } catch {
      // A transcript that cannot be written does not stop the agent; the next lines are not tried.
      broken = true;
    }
  };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  write({ type: "subagent", ...head, time: new Date().toISOString() });
  return { file, add: (message) => write({ type: "message", time: new Date().toISOString(), message }) };
}
