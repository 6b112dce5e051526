/**
 * Running an event's hooks: the matching handlers (deduplicated, as Claude Code does), all at once,
 * each with the event's JSON on stdin; what each run means (outcome.ts), failures reported and
 * failing closed where asked; every run audited (kind `hook`); the answers combined (deny beats ask
 * beats allow; any block blocks; every context kept).
 */
import { type PluginContext, type RegisteredTool } from "../../core/index.js";
import { DEFAULT_PLUGIN_TIMEOUTS, parsePermissionRule, ruleNamesTool } from "../../core/embed.js";
import { capOutput, denySubjects, opaqueReason } from "../../kit/index.js";
import type { Handler, HookPlan } from "./config.js";
import { CLAUDE_MODES, FAIL_CLOSED, type HookEvent } from "./events.js";
import { interpret, type Meaning } from "./outcome.js";
import { runCommandHook } from "./runner.js";
import type { Transcript } from "./transcript.js";

/** Claude Code's bound on a hook's reason or context; longer text is cut, saying so. */
const MAX_TEXT = 10_000;

const RANK: Record<string, number> = { deny: 3, block: 3, ask: 2, allow: 1, continue: 1 };

export interface Combined {
  decision?: Meaning["decision"];
  reason?: string;
  contexts: string[];
  updatedInput?: unknown;
  updatedOutput?: unknown;
  /** A hook said `continue: false`: the run should end, for this reason. */
  stop?: string;
  /** Which hooks ran (for tests and messages). */
  ran: number;
}

export interface DispatchOptions {
  /** What the matcher is tested against (a tool's names, a session's source…). */
  names: readonly string[];
  /** The event's own fields (`tool_name`, `prompt`…). */
  fields: Record<string, unknown>;
  callId?: string;
  signal?: AbortSignal;
  /** The session the event is about, when it may no longer be the host's (SessionEnd after /clear). */
  sessionId?: string;
  /** For `if`: the tool called and what permission rules see in the call. */
  call?: { tool: RegisteredTool; subjects: readonly string[] | undefined; paths: boolean };
}

export class Dispatcher {
  constructor(
    private readonly ctx: PluginContext,
    private readonly plan: HookPlan,
    private readonly transcript: Transcript,
  ) {}

  has(event: HookEvent): boolean {
    return this.plan.has(event);
  }

  /** How long a hook of this event may take: its own timeout, within the host's bound on the handler that waits for it. */
  private timeoutFor(event: HookEvent, h: Handler): number {
    if (h.async || event === "Notification") return h.timeoutMs;
    const t = this.ctx.config.pluginTimeouts;
    const bound = event === "SessionEnd" ? (t?.shutdownMs ?? DEFAULT_PLUGIN_TIMEOUTS.shutdownMs) : (t?.callMs ?? DEFAULT_PLUGIN_TIMEOUTS.callMs);
    return Math.max(50, Math.min(h.timeoutMs, bound - 250));
  }

  async run(event: HookEvent, o: DispatchOptions): Promise<Combined> {
    const handlers = this.matching(event, o);
    const combined: Combined = { contexts: [], ran: handlers.length };
    if (!handlers.length) return combined;
    const since = performance.now();
    const root = this.ctx.workspace.root;
    const sessionId = o.sessionId ?? this.ctx.host.sessionId;
    const stdin = JSON.stringify({
      session_id: sessionId,
      transcript_path: sessionId === this.ctx.host.sessionId ? this.transcript.update() : this.transcript.fileFor(sessionId),
      cwd: root,
      permission_mode: CLAUDE_MODES[this.ctx.host.permissionMode] ?? this.ctx.host.permissionMode,
      hook_event_name: event,
      ...o.fields,
    });
    const env = { ...process.env, ...this.ctx.config.env, CLAUDE_PROJECT_DIR: root, AGENT_PROJECT_DIR: root };
    const runOne = async (h: Handler): Promise<Meaning> => {
      const timeoutMs = this.timeoutFor(event, h);
      const run = await runCommandHook({ command: h.command, args: h.args, cwd: root, env: h.env ? { ...env, ...h.env } : env, stdin, timeoutMs, since, processes: this.ctx.processes, signal: h.async ? undefined : o.signal, ...(this.ctx.sandbox.hooks ? { sandbox: this.ctx.sandbox } : {}) });
      const meaning = this.settle(event, h, interpret(event, run, timeoutMs));
      this.ctx.audit({
        kind: "hook",
        name: event,
        outcome: run.aborted ? "cancelled" : run.timedOut ? "timeout" : meaning.failure ? "failed" : run.exitCode === 2 ? "blocked" : "ok",
        durationMs: run.durationMs,
        ...(o.callId ? { callId: o.callId } : {}),
        ...(meaning.failure ? { error: meaning.failure } : {}),
        detail: { where: h.where, command: h.command, exitCode: run.exitCode, signal: run.signal ?? undefined, decision: meaning.decision ?? "none", ...(run.dropped ? { droppedBytes: run.dropped } : {}) },
      });
      return meaning;
    };
    const meanings = await Promise.all(
      handlers.map((h) => {
        const p = runOne(h);
        // An async hook runs in the background: its output decides nothing.
        if (h.async) {
          p.catch((err: unknown) => this.ctx.log.warn(`${event} hook ${label(h)} failed: ${String(err)}`));
          return {} as Meaning;
        }
        return p;
      }),
    );
    for (const m of meanings) {
      if (m.context) combined.contexts.push(cut(m.context));
      if (m.stop && combined.stop === undefined) combined.stop = cut(m.stop);
      if (m.updatedOutput !== undefined && combined.updatedOutput === undefined) combined.updatedOutput = m.updatedOutput;
      if (m.decision && (RANK[m.decision] ?? 0) > (RANK[combined.decision ?? ""] ?? 0)) {
        combined.decision = m.decision;
        combined.reason = m.reason === undefined ? undefined : cut(m.reason);
        if (m.updatedInput !== undefined) combined.updatedInput = m.updatedInput;
      } else if (m.decision === "continue" && m.reason) combined.reason = [combined.reason, cut(m.reason)].filter(Boolean).join("\n");
      if (m.updatedInput !== undefined && combined.updatedInput === undefined) combined.updatedInput = m.updatedInput;
    }
    if (combined.decision === "deny" || combined.decision === "block") delete combined.updatedInput;
    return combined;
  }

  /** Report what the user should see; a failed hook that fails closed denies (or blocks). */
  private settle(event: HookEvent, h: Handler, m: Meaning): Meaning {
    if (m.systemMessage) this.ctx.log.warn(`${event} hook: ${cut(m.systemMessage)}`);
    if (!m.failure) return m;
    const closes = h.failClosed ? FAIL_CLOSED[event] : undefined;
    this.ctx.log.warn(`${event} hook ${label(h)} ${m.failure}${closes ? `; it fails closed, so it ${closes}` : ""}`);
    if (!closes) return m;
    const reason = `${event} hook ${label(h)} ${m.failure}, and fails closed`;
    return { ...m, decision: event === "PreToolUse" || event === "PermissionRequest" ? "deny" : "block", reason };
  }

  private matching(event: HookEvent, o: DispatchOptions): Handler[] {
    const seen = new Set<string>();
    const out: Handler[] = [];
    for (const g of this.plan.get(event) ?? []) {
      if (!g.matcher.test(o.names)) continue;
      for (const h of g.handlers) {
        const key = JSON.stringify([h.command, h.args ?? null]);
        if (seen.has(key) || !ifMatches(h, o.call)) continue;
        seen.add(key);
        out.push(h);
      }
    }
    return out;
  }
}

/** Claude Code's `if`: one permission rule the call must match (only on tool events; elsewhere the hook never runs). */
function ifMatches(h: Handler, call: DispatchOptions["call"]): boolean {
  if (!h.if) return true;
  if (!call) return false;
  let rule;
  try {
    rule = parsePermissionRule(h.if.replace(/\(\.\//, "(/"));
  } catch {
    return true; // Claude Code runs the hook when the filter cannot be read
  }
  if (!ruleNamesTool(rule, call.tool)) return false;
  if (!rule.pattern) return true;
  const match = call.paths ? (rule.pathPattern ?? rule.pattern) : rule.pattern;
  // As a deny rule would: every form of the command, and a line whose command cannot be judged matches.
  if (call.subjects && opaqueReason(call.subjects) !== undefined) return true;
  return denySubjects(call.subjects ?? []).some((s) => match(s));
}

function label(h: Handler): string {
  const c = h.command.length > 60 ? `${h.command.slice(0, 57)}…` : h.command;
  return `"${c}" (${h.where})`;
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : capOutput(text, MAX_TEXT).text;
}
