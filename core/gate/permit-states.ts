/**
 * What `permission` and `permissionRequest` handlers run on: the gate's record of the call, which
 * hands each handler a frozen view and gathers what it answers. Anything that is not an answer the
 * hook takes is reported; for `permission` it also denies the call (fail closed), while a broken
 * `permissionRequest` handler only leaves the question to the user.
 */
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import type { Collector, FailingCollector, PermissionCheck, PermissionPromptInfo } from "../hooks/hook-types.js";
import { describeValue } from "../hooks/hook-adapters.js";
import type { ToolEntry } from "../registry/registry.js";
import type { CallAgentInfo, PermissionMode } from "../types.js";
import type { Verdicts } from "./permissions.js";
import { byText, type Subjects, type Verdict } from "./verdict.js";

type Vote = { plugin: string; decision: "allow" | "ask" | "deny"; reason?: string; version: number };

const DECISIONS = ["allow", "ask", "deny"] as const;

/** A handler's `reason`, or a problem when it is there and not a string. */
function reasonOf(o: Record<string, unknown>): { reason?: string; problem?: string } {
  if (o.reason === undefined) return {};
  return typeof o.reason === "string" ? { reason: o.reason } : { problem: `a reason that is ${describeValue(o.reason)}` };
}

export class PermissionState implements FailingCollector<PermissionCheck> {
  input: unknown;
  rewrittenBy: string | undefined;
  private version = 0;
  private readonly cast: Vote[] = [];
  private frozen: Promise<PermissionCheck> | undefined;
  private current: Promise<{ subjects: Subjects; verdict: Verdict }> | undefined;

  constructor(
    private readonly tool: ToolEntry,
    input: unknown,
    private readonly callId: string,
    private readonly sessionId: string,
    private readonly mode: PermissionMode,
    private readonly verdicts: Pick<Verdicts, "evaluate">,
    private readonly signal: AbortSignal | undefined,
    private readonly agent?: CallAgentInfo,
  ) {
    this.input = input;
  }

  /** The subjects and verdict of the current input (computed once per version). */
  private evaluate(): Promise<{ subjects: Subjects; verdict: Verdict }> {
    return (this.current ??= this.verdicts.evaluate(this.tool, this.input));
  }

  async subjects(): Promise<Subjects> {
    return (await this.evaluate()).subjects;
  }

  view(): Promise<PermissionCheck> {
    return (this.frozen ??= this.evaluate().then(({ subjects, verdict }) =>
      Object.freeze({
        tool: this.tool.view,
        input: freezeCopy(this.input) as never,
        callId: this.callId,
        sessionId: this.sessionId,
        ...(Array.isArray(subjects) ? { subjects: Object.freeze([...subjects]) } : {}),
        verdict: Object.freeze({ decision: verdict.decision, by: byText(verdict.why) }),
        mode: this.mode,
        ...(this.signal ? { signal: this.signal } : {}),
        ...(this.agent ? { agent: this.agent } : {}),
      }),
    ));
  }

  take(plugin: string, out: unknown): string | undefined {
    const deny = (problem: string) => {
      this.cast.push({ plugin, decision: "deny", reason: `a permission handler of plugin ${plugin} returned ${problem} instead of { decision, reason?, input? }; the call was denied to be safe`, version: this.version });
      return `returned ${problem} instead of { decision: "allow" | "ask" | "deny", reason?, input? }; the call was denied`;
    };
    if (typeof out !== "object" || Array.isArray(out)) return deny(describeValue(out));
    const o = out as Record<string, unknown>;
    const decision = o.decision;
    if (decision !== undefined && !DECISIONS.includes(decision as never)) return deny(`the decision ${JSON.stringify(String(decision))}`);
    const { reason, problem } = reasonOf(o);
    if (problem) return deny(problem);
    if (!("input" in o) && decision === undefined) return deny("an object with neither a decision nor an input");
    if ("input" in o) {
      // A rewrite: later handlers see it, and an allow cast before it no longer counts.
      this.input = plainCopy(o.input);
      this.rewrittenBy = plugin;
      this.version++;
      this.frozen = undefined;
      this.current = undefined;
    }
    if (decision !== undefined) this.cast.push({ plugin, decision: decision as Vote["decision"], ...(reason !== undefined ? { reason } : {}), version: this.version });
    return undefined;
  }

  fail(plugin: string, message: string): void {
    this.cast.push({ plugin, decision: "deny", reason: `plugin ${plugin} failed in permission (${message}); the call was denied to be safe`, version: this.version });
  }

  /** The strongest vote of each kind; an allow only when it was cast on the input that will run. */
  votes(): { deny?: Vote; ask?: Vote; allow?: Vote } {
    return {
      deny: this.cast.find((v) => v.decision === "deny"),
      ask: this.cast.find((v) => v.decision === "ask"),
      allow: this.cast.find((v) => v.decision === "allow" && v.version === this.version),
    };
  }
}

export type Answer = { plugin: string; decision: "allow" | "deny"; reason?: string; input?: unknown };

/** `permissionRequest`: a failing handler answers nothing (the hook's policy is skip): the question goes on to the user. */
export class PromptState implements Collector<PermissionPromptInfo> {
  private readonly answers: Answer[] = [];
  private frozen: PermissionPromptInfo | undefined;

  constructor(
    private readonly tool: ToolEntry,
    private readonly input: unknown,
    private readonly callId: string,
    private readonly sessionId: string,
    private readonly mode: PermissionMode,
    private readonly question: { subjects: string[] | undefined; reason: string; answerable: boolean; suggestedRules: string[]; signal?: AbortSignal; agent?: CallAgentInfo },
  ) {}

  view(): PermissionPromptInfo {
    const q = this.question;
    return (this.frozen ??= Object.freeze({
      tool: this.tool.view,
      input: freezeCopy(this.input) as never,
      callId: this.callId,
      sessionId: this.sessionId,
      ...(q.subjects ? { subjects: Object.freeze([...q.subjects]) } : {}),
      reason: q.reason,
      answerable: q.answerable,
      suggestedRules: Object.freeze([...q.suggestedRules]),
      mode: this.mode,
      ...(q.signal ? { signal: q.signal } : {}),
      ...(q.agent ? { agent: q.agent } : {}),
    }));
  }

  take(plugin: string, out: unknown): string | undefined {
    const ignored = (what: string) => `returned ${what} instead of { decision: "allow" | "deny", reason?, input? }; ignored (the user is asked)`;
    if (typeof out !== "object" || Array.isArray(out)) return ignored(describeValue(out));
    const o = out as Record<string, unknown>;
    if (o.decision !== "allow" && o.decision !== "deny") return ignored(o.decision === undefined ? "no decision" : `the decision ${JSON.stringify(String(o.decision))}`);
    const { reason, problem } = reasonOf(o);
    if (problem) return ignored(problem);
    this.answers.push({ plugin, decision: o.decision, ...(reason !== undefined ? { reason } : {}), ...(o.decision === "allow" && "input" in o ? { input: plainCopy(o.input) } : {}) });
    return undefined;
  }

  /** Deny beats allow; the first of each. */
  answer(): Answer | undefined {
    return this.answers.find((a) => a.decision === "deny") ?? this.answers.find((a) => a.decision === "allow");
  }
}
