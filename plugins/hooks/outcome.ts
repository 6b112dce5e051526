/**
 * What one hook's run means, by Claude Code's contract. Exit 0: stdout is JSON output when it is a JSON
 * object, else plain text (context for UserPromptSubmit and SessionStart, ignored elsewhere). Exit 2:
 * a block, with stderr as the reason (what a block does depends on the event). Anything else (another
 * code, a signal, a timeout, a hook that cannot start, JSON output with a wrongly typed field) is a
 * failure: reported, and a denial only for a hook that fails closed.
 *
 * Output meant as JSON (it starts with `{`) that does not parse (cut short: `{"decision": "block", "reason": "x`)
 * is a failure too: a policy hook whose `deny` was lost must not let the call through when it fails
 * closed. Otherwise, as in Claude Code, it is plain text all the same (context where plain text is),
 * and the failure is only reported.
 */
import type { HookEvent } from "./events.js";
import type { RunOutcome } from "./runner.js";

export interface Meaning {
  /** allow / ask / deny (tool permission), block (prompt, compaction), continue (stop). */
  decision?: "allow" | "ask" | "deny" | "block" | "continue";
  reason?: string;
  /** Text for the model (additionalContext, plain stdout where it counts, PostToolUse feedback). */
  context?: string;
  updatedInput?: unknown;
  /** PostToolUse: the output the model gets instead. */
  updatedOutput?: unknown;
  /** `continue: false`: the run ends, with this reason for the user. */
  stop?: string;
  /** Shown to the user. */
  systemMessage?: string;
  /** Why the hook failed (a non-blocking error unless it fails closed). */
  failure?: string;
  /** The call was cancelled while the hook ran: it decides nothing. */
  cancelled?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The line of stderr that says what went wrong: the first that names an error (a Node stack starts with a file position), else the first. */
function firstLine(s: string): string {
  const lines = s.split("\n").map((l) => l.trim()).filter(Boolean);
  return (
    lines.find((l) => /^[\w.]*(Error|Exception)\b:|^(error|fatal)\b/i.test(l)) ??
    lines.find((l) => /\b(failed|not found|denied|cannot|can't|no such)\b/i.test(l)) ??
    lines[0] ??
    ""
  );
}

/** A failure message from the run, or undefined when it exited 0 or 2. */
function runFailure(run: RunOutcome, timeoutMs: number): string | undefined {
  if (run.spawnError) return `could not be started: ${run.spawnError}`;
  if (run.timedOut) return `timed out after ${Math.round(timeoutMs / 100) / 10} s and was stopped`;
  if (run.exitCode === 0 || run.exitCode === 2) return undefined;
  const why = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
  const line = firstLine(run.stderr);
  return line ? `${why}: ${line}` : why;
}

/**
 * Claude Code reads stdout as JSON when it starts with `{` and parses; anything else is plain text.
 * `broken`: it starts with `{` and does not parse (why, for the failure's message).
 */
function parseStdout(stdout: string): { json?: Obj; plain?: string; broken?: string } {
  const t = stdout.trim();
  if (t.startsWith("{")) {
    try {
      const v: unknown = JSON.parse(t);
      if (isObj(v)) return { json: v };
    } catch (err) {
      return { plain: t, broken: (err as Error).message };
    }
  }
  return t ? { plain: t } : {};
}

class BadOutput extends Error {}
function str(o: Obj, key: string, where = ""): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new BadOutput(`${where}${key} must be a string`);
  return v;
}

/** The meaning of one run for `event`. */
export function interpret(event: HookEvent, run: RunOutcome, timeoutMs: number): Meaning {
  if (run.aborted) return { cancelled: true };
  const failure = runFailure(run, timeoutMs);
  if (failure) return { failure };
  if (run.exitCode === 2) return blocked(event, run.stderr.trim() || "exit code 2 (no reason on stderr)");
  const { json, plain, broken } = parseStdout(run.stdout);
  if (!json) {
    const m: Meaning = plain !== undefined && (event === "UserPromptSubmit" || event === "SessionStart") ? { context: plain } : {};
    if (broken !== undefined) m.failure = `printed output that starts with "{" but is not valid JSON (${broken.slice(0, 200)}), so its decision is unknown`;
    return m;
  }
  try {
    return fromJson(event, json);
  } catch (err) {
    if (err instanceof BadOutput) return { failure: `printed JSON that is not valid hook output: ${err.message}` };
    throw err;
  }
}

/** Exit 2, per event (Claude Code's table). */
function blocked(event: HookEvent, reason: string): Meaning {
  switch (event) {
    case "PreToolUse":
    case "PermissionRequest":
      return { decision: "deny", reason };
    case "UserPromptSubmit":
    case "PreCompact":
      return { decision: "block", reason };
    case "Stop":
      return { decision: "continue", reason };
    case "PostToolUse":
    case "PostToolUseFailure":
      // The tool already ran: the model sees the message next to the result.
      return { context: reason };
    default:
      // SessionStart, SessionEnd, Notification: nothing to block; the user sees it.
      return { systemMessage: reason };
  }
}

function fromJson(event: HookEvent, json: Obj): Meaning {
  const m: Meaning = {};
  if (json.continue !== undefined && typeof json.continue !== "boolean") throw new BadOutput("continue must be true or false");
  if (json.continue === false) m.stop = str(json, "stopReason") ?? "a hook said to stop";
  const sys = str(json, "systemMessage");
  if (sys) m.systemMessage = sys;
  const hso = json.hookSpecificOutput;
  if (hso !== undefined && !isObj(hso)) throw new BadOutput("hookSpecificOutput must be an object");
  const h = (hso ?? {}) as Obj;
  const ctx = str(h, "additionalContext", "hookSpecificOutput.");
  const reason = str(json, "reason");
  const topBlock = () => {
    const d = json.decision;
    if (d === undefined || d === null) return false;
    if (d !== "block" && d !== "approve") throw new BadOutput(`decision must be "block"`);
    return d === "block";
  };
  switch (event) {
    case "PreToolUse": {
      let d = h.permissionDecision;
      // The older top-level form: "approve" / "block".
      if (d === undefined && json.decision !== undefined) d = json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : json.decision;
      if (d === "defer") d = "ask";
      if (d !== undefined && d !== "allow" && d !== "ask" && d !== "deny") throw new BadOutput(`permissionDecision must be "allow", "deny", "ask" or "defer"`);
      if (d) m.decision = d as Meaning["decision"];
      const r = str(h, "permissionDecisionReason", "hookSpecificOutput.") ?? reason;
      if (r) m.reason = r;
      if (h.updatedInput !== undefined) {
        if (!isObj(h.updatedInput)) throw new BadOutput("hookSpecificOutput.updatedInput must be an object");
        m.updatedInput = h.updatedInput;
      }
      if (ctx) m.context = ctx;
      break;
    }
    case "PermissionRequest": {
      const dec = h.decision;
      if (dec === undefined) break;
      if (!isObj(dec)) throw new BadOutput("hookSpecificOutput.decision must be an object");
      if (dec.behavior !== "allow" && dec.behavior !== "deny") throw new BadOutput(`decision.behavior must be "allow" or "deny"`);
      m.decision = dec.behavior;
      const r = str(dec, "message", "decision.");
      if (r) m.reason = r;
      if (dec.behavior === "allow" && dec.updatedInput !== undefined) {
        if (!isObj(dec.updatedInput)) throw new BadOutput("decision.updatedInput must be an object");
        m.updatedInput = dec.updatedInput;
      }
      if (dec.behavior === "deny" && dec.interrupt === true) m.stop = r ?? "a PermissionRequest hook interrupted the run";
      break;
    }
    case "PostToolUse":
    case "PostToolUseFailure": {
      const parts = [topBlock() ? reason : undefined, ctx].filter((x): x is string => !!x);
      if (parts.length) m.context = parts.join("\n");
      const updated = h.updatedToolOutput ?? h.updatedMCPToolOutput;
      if (event === "PostToolUse" && updated !== undefined) m.updatedOutput = updated;
      break;
    }
    case "UserPromptSubmit":
    case "PreCompact":
      if (topBlock()) {
        m.decision = "block";
        m.reason = reason ?? "blocked by a hook";
      }
      if (ctx && event === "UserPromptSubmit") m.context = ctx;
      break;
    case "Stop":
      if (topBlock()) {
        m.decision = "continue";
        m.reason = reason ?? "a Stop hook asked to continue";
      } else if (ctx) {
        m.decision = "continue";
        m.reason = ctx;
      }
      break;
    case "SessionStart":
      if (ctx) m.context = ctx;
      break;
    default:
      break;
  }
  return m;
}
