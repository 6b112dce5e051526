/**
 * The gate's permission step: the rules and the mode decide (deny beats ask beats allow); `permission`
 * handlers may vote or rewrite the input first; a question goes to `permissionRequest` handlers, then
 * to the user (headless: denied). No handler can turn a deny rule or plan mode into an allow, skip an
 * ask rule, or change the mode: an `allow` from a plugin only replaces a question the mode would ask.
 */
import type { AuditLog } from "./audit.js";
import { exactRule, projectRules, suggestRules } from "../../kit/rules/exact-rules.js";
import { PermissionRuleSchema } from "../config/config-schema.js";
import { errorMessage } from "../../kit/errors.js";
import type { AgentEvent } from "../hooks/events.js";
import { freezeCopy, plainCopy } from "../../kit/freeze.js";
import type { RawHooks } from "../hooks/hooks.js";
import { PermissionState, PromptState, type Answer } from "./permit-states.js";
import { parseRule, type PermissionRules, type SubjectKind } from "../../kit/rules/parse.js";
import { NO_GUARD, Verdicts, type Guard, type Guarded } from "./permissions.js";
import { byText, SubjectFailure, type Subjects, type Verdict } from "./verdict.js";
import type { ProtectedWrite } from "../../kit/fs/protected-paths.js";
import { isUncertain, plainSubjects, soleSubject } from "../../kit/shell/subject-marks.js";
import { unjudgeableReason } from "../../kit/rules/match.js";
import { validateInput, type ToolEntry } from "../registry/registry.js";
import type { CallAgentInfo, PermissionAsker, SessionGrant, Workspace } from "../types.js";

export interface PermitDeps {
  hooks: RawHooks;
  audit: AuditLog;
  workspace: Workspace;
  sessionId: string;
  emit(event: AgentEvent): void;
  rules: PermissionRules;
  /** Where to tell the user to add a rule. */
  configFileHint: string;
}

/** The permission step's outcome; `input` is set when a handler rewrote the call (validated). */
export type Permit = { decision: "allow" | "deny" | "invalid"; by: string; message?: string; input?: unknown; rewrittenBy?: string };

export class Permissions {
  asker: PermissionAsker | undefined;
  /** The subagents of the calls being decided, by call id (set by the gate): named in handlers' views and the question. */
  readonly agents = new Map<string, CallAgentInfo>();
  /** Rules, mode and grants over a call's subjects (permissions.ts): the verdict before anyone is asked. */
  readonly verdicts: Verdicts;

  constructor(private readonly deps: PermitDeps) {
    this.verdicts = new Verdicts(deps);
  }

  /**
   * A plugin asks to allow `rules` for the rest of the session. `policy` is config `permissions.grants`.
   * A grant only widens what would be asked: deny rules and plan mode still win. Audited either way.
   */
  async requestGrant(plugin: string, rules: readonly unknown[], reason: string, policy: "ask" | "allow" | "deny"): Promise<boolean> {
    const list = rules.filter((r): r is string => typeof r === "string" && PermissionRuleSchema.safeParse(r).success);
    if (!list.length || list.length !== rules.length) {
      this.deps.emit({ type: "notice", level: "warn", source: plugin, message: `Plugin ${plugin} asked to allow rules that are not valid permission rules: ${JSON.stringify(rules)}; refused.` });
      return false;
    }
    let decision: "allow" | "deny";
    let by: string;
    if (policy !== "ask") {
      decision = policy;
      by = "config:permissions.grants";
    } else if (!this.asker) {
      decision = "deny";
      by = "no terminal to ask (set permissions.grants to allow them headless)";
    } else {
      let answer: Awaited<ReturnType<PermissionAsker>> = "deny";
      try {
        answer = await this.asker({ kind: "grant", plugin, rules: list, reason });
      } catch (err) {
        this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `permission prompt failed: ${errorMessage(err)}` });
      }
      decision = isAllow(answer) ? "allow" : "deny";
      by = "user";
    }
    if (decision === "allow") this.verdicts.addSessionGrant({ rules: list, by: `plugin:${plugin}`, reason }, list.map(parseRule), []);
    this.deps.audit.write({ kind: "grant", source: plugin, name: list.join(", "), decision, by, outcome: decision === "allow" ? "granted" : "refused", detail: { reason } });
    this.deps.emit({ type: "permission_grant", plugin, rules: list, reason, decision, by });
    return decision === "allow";
  }

  /**
   * Allow `rules` until the current run ends (or, between runs, the next one), without asking: the host
   * calls this for a part of a folder the user trusted (a Markdown command's `allowed-tools`), as Claude
   * Code applies them for that command's turn. Bounded like any grant: deny rules, ask rules and plan
   * mode still win. Audited and emitted.
   */
  grantForTurn(plugin: string, rules: readonly string[], reason: string, by: string): boolean {
    const list = rules.filter((r) => PermissionRuleSchema.safeParse(r).success);
    if (!list.length || list.length !== rules.length) return false;
    this.verdicts.addTurnGrant(list.map(parseRule));
    this.deps.audit.write({ kind: "grant", source: plugin, name: list.join(", "), decision: "allow", by, outcome: "granted", detail: { reason, until: "end of turn" } });
    this.deps.emit({ type: "permission_grant", plugin, rules: list, reason, decision: "allow", by });
    return true;
  }

  /** Take back session grant `index` (0-based): its rules no longer allow anything. Audited. */
  revokeSessionGrant(index: number, by: string): SessionGrant | undefined {
    const grant = this.verdicts.revokeSessionGrant(index);
    if (grant) this.deps.audit.write({ kind: "grant", source: by, name: grant.rules.join(", "), decision: "deny", by, outcome: "revoked", detail: { grantedBy: grant.by } });
    return grant;
  }

  /** Whether a question would reach someone (an asker is installed: a terminal). */
  canAsk(): boolean {
    return !!this.asker;
  }

  /** A plugin's question to the user (`ctx.askUser`): the text typed, or null (no terminal, cancelled, a failing asker). */
  async askInput(plugin: string, question: string): Promise<string | null> {
    if (!this.asker) return null;
    try {
      const a = await this.asker({ kind: "input", plugin, question: String(question) });
      return typeof a === "object" && a !== null && a.decision === "answer" && typeof a.text === "string" ? a.text : null;
    } catch (err) {
      this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `prompt failed: ${errorMessage(err)}` });
      return null;
    }
  }

  /** The permission decision; a promise only when a handler or the user is asked. */
  permit(tool: ToolEntry, input: unknown, callId: string, signal?: AbortSignal): Permit | Promise<Permit> {
    if (this.deps.hooks.permission.isUsed()) return this.permitWithHooks(tool, input, callId, signal);
    const subjects = this.verdicts.subjects(tool, input);
    if (subjects instanceof Promise) return subjects.then((s) => this.guardAndSettle(tool, input, callId, s, signal));
    return this.guardAndSettle(tool, input, callId, subjects, signal);
  }

  private guardAndSettle(tool: ToolEntry, input: unknown, callId: string, subjects: Subjects, signal: AbortSignal | undefined): Permit | Promise<Permit> {
    const hits = this.verdicts.protectedWrites(tool, input, subjects);
    if (hits instanceof Promise) return hits.then((h) => this.settle(tool, input, callId, subjects, h, undefined, signal));
    return this.settle(tool, input, callId, subjects, hits, undefined, signal);
  }

  /** `permission` handlers vote (and may rewrite) first; the rules then decide on the final input. */
  private async permitWithHooks(tool: ToolEntry, input: unknown, callId: string, signal: AbortSignal | undefined): Promise<Permit> {
    const state = new PermissionState(tool, input, callId, this.deps.sessionId, this.verdicts.mode, this.verdicts, signal, this.agents.get(callId));
    // The kernel's own look at the call (its subjects and verdict: a shell command's parser loads on first
    // use) is done before the handlers' pluginTimeouts.callMs starts: on a loaded machine it alone could
    // use that bound up, and a hook stopped at its own timeout within it would count as the plugin failing.
    await state.view().catch(() => undefined).then(() => this.deps.hooks.permission.promise(state));
    let args = input;
    let subjects: Subjects;
    if (state.rewrittenBy) {
      const again = await validateInput(tool, state.input);
      if (!again.ok) {
        return { decision: "invalid", by: `plugin:${state.rewrittenBy}`, message: `Input rewritten by plugin ${state.rewrittenBy} is invalid for ${tool.name}:\n${again.issues.map((i) => `- ${i}`).join("\n")}` };
      }
      args = plainCopy(again.value);
      subjects = await this.verdicts.subjects(tool, args);
    } else subjects = await state.subjects();
    const permit = await this.settle(tool, args, callId, subjects, await this.verdicts.protectedWrites(tool, args, subjects), state.votes(), signal);
    return state.rewrittenBy ? { input: args, rewrittenBy: state.rewrittenBy, ...permit } : permit;
  }

  /** Rules and mode, then the plugins' votes: deny (rule, plan mode, vote) > ask (vote, rule, mode) > allow. */
  private settle(tool: ToolEntry, input: unknown, callId: string, subjects: Subjects, hits: Guarded, votes?: ReturnType<PermissionState["votes"]>, signal?: AbortSignal): Permit | Promise<Permit> {
    // Without a subject no pattern rule can match, so a deny rule would not apply: fail closed.
    const { failed, verdict: v, guard } = this.verdicts.decideOn(tool, subjects, hits);
    if (failed) {
      return { decision: "deny", by: "permissionSubject", message: `Permission denied: ${tool.name} was not run because its permission check failed (${failed.message}).` };
    }
    const list = subjects as string[] | undefined;
    const what = describeCall(tool.name, list);
    if (v.decision === "deny") return { decision: "deny", by: byText(v.why), message: `Permission denied: ${what} was not run because ${this.denialReason(tool, v, hits as ProtectedWrite[], list)}.` };
    if (votes?.deny) return { decision: "deny", by: `plugin:${votes.deny.plugin}`, message: `Denied by a plugin: ${votes.deny.reason ?? `${what} was not allowed.`}` };
    if (votes?.ask) return this.ask(tool, input, callId, { decision: "ask", why: { kind: "plugin", plugin: votes.ask.plugin, reason: votes.ask.reason } }, list, what, false, signal, guard);
    const fromMode = v.why.kind === "mode";
    if (v.decision === "ask" && fromMode && votes?.allow) return { decision: "allow", by: `plugin:${votes.allow.plugin}` };
    if (v.decision === "allow") return { decision: "allow", by: byText(v.why) };
    return this.ask(tool, input, callId, v, list, what, fromMode, signal, guard);
  }

  private denialReason(tool: ToolEntry, v: Verdict, hits: ProtectedWrite[], subjects: string[] | undefined): string {
    const why = v.why;
    if (why.kind === "mode") return `${tool.risk} tools are not allowed in ${this.verdicts.mode} mode`;
    const never = why.kind === "protected" ? hits.find((h) => h.level === "never") : undefined;
    if (never) return `it would write ${never.path}, ${never.why}, which tools never write (in any mode, whatever the rules)`;
    if (why.kind === "uncertain") return unjudgeableReason(why.rule, subjects);
    return `it matches the deny rule "${byText(why)}"`;
  }

  /** A question: `permissionRequest` handlers first, then the user (with no terminal: denied, naming the rule to add). */
  private async ask(tool: ToolEntry, input: unknown, callId: string, v: Verdict, subjects: string[] | undefined, what: string, answerable: boolean, signal?: AbortSignal, guard = NO_GUARD): Promise<Permit> {
    const suggestedRules = suggestRules(tool.name, subjects);
    if (this.deps.hooks.permissionRequest.isUsed()) {
      const state = new PromptState(tool, input, callId, this.deps.sessionId, this.verdicts.mode, { subjects, reason: byText(v.why), answerable, suggestedRules, signal, agent: this.agents.get(callId) });
      await this.deps.hooks.permissionRequest.promise(state);
      const answer = state.answer();
      if (answer?.decision === "deny") {
        return { decision: "deny", by: `plugin:${answer.plugin}`, message: `Permission denied by a plugin: ${what} was not run${answer.reason ? `: ${answer.reason}` : "."}` };
      }
      if (answer && answerable) return this.answered(tool, callId, answer);
    }
    return this.askUser(tool, input, callId, v, subjects, what, suggestedRules, guard);
  }

  /** A handler allowed in the user's place; a rewritten input is validated and decided by the rules again. */
  private async answered(tool: ToolEntry, callId: string, answer: Answer): Promise<Permit> {
    const by = `plugin:${answer.plugin}`;
    if (answer.input === undefined) return { decision: "allow", by };
    const again = await validateInput(tool, answer.input);
    if (!again.ok) return { decision: "invalid", by, message: `Input rewritten by plugin ${answer.plugin} is invalid for ${tool.name}:\n${again.issues.map((i) => `- ${i}`).join("\n")}` };
    const args = plainCopy(again.value);
    const { subjects, verdict, guard } = await this.verdicts.evaluate(tool, args);
    const rewritten = { input: args, rewrittenBy: answer.plugin };
    if (subjects instanceof SubjectFailure || verdict.decision === "deny") {
      const kind = verdict.why.kind;
      const why = kind === "subject-failed" ? "its permission check failed" : kind === "protected" ? "it would write a file tools never write" : `it matches "${byText(verdict.why)}"`;
      return { ...rewritten, decision: "deny", by: byText(verdict.why), message: `Input rewritten by plugin ${answer.plugin} was denied: ${why}.` };
    }
    // An ask rule (or a protected file) means the user is asked, whoever rewrote the call.
    if (verdict.decision === "ask" && verdict.why.kind !== "mode") {
      return { ...rewritten, ...(await this.askUser(tool, args, callId, verdict, subjects, describeCall(tool.name, subjects), suggestRules(tool.name, subjects), guard)) };
    }
    return { ...rewritten, decision: "allow", by };
  }

  private async askUser(tool: ToolEntry, input: unknown, callId: string, v: Verdict, subjects: string[] | undefined, what: string, suggestedRules: string[], guard = NO_GUARD): Promise<Permit> {
    const suggestedRule = suggestedRules.join(", ");
    // The same rules as a config file must hold them to mean exactly this call (see kit/rules/exact-rules.ts).
    const exact = projectRules(tool.name, subjects, tool.definition.subjectKind === "path" ? "path" : "text");
    const unasked = (): Permit => {
      if (v.why.kind === "protected") return this.protectedDenial(tool, v, subjects, what, guard);
      return {
        decision: "deny",
        by: byText(v.why),
        message:
          `Permission denied: ${what} (risk: ${tool.risk}) needs approval and there is no terminal to ask. ` +
          `To allow it, add ${(exact.length ? exact : suggestedRules).map((r) => `"${r}"`).join(" and ")} to ${this.allowKey()} in ${this.deps.configFileHint}, ` +
          `or run with --permission-mode ${tool.risk === "write" ? "acceptEdits" : "bypass"}.`,
      };
    };
    if (!this.asker) return unasked();
    // One subject is shown as `tool(subject)`; several (a pipeline, a list) are shown as the input as written, with its parts.
    const parts = subjects && plainSubjects(subjects);
    const uncertain = subjects !== undefined && isUncertain(subjects);
    const subject = soleSubject(subjects);
    this.deps.emit({ type: "permission_request", callId, name: tool.name, subject, suggestedRule });
    let answer: Awaited<ReturnType<PermissionAsker>>;
    try {
      const protectedWrites = guard.open.length ? { protectedWrites: Object.freeze(guard.open.map((h) => Object.freeze({ path: h.path, why: h.why }))) } : {};
      const agent = this.agents.get(callId);
      answer = await this.asker!({ tool: tool.view, input: freezeCopy(input), callId, subject, parts: parts ?? [], uncertain, suggestedRule, suggestedRules, projectRules: exact, reason: byText(v.why), ...protectedWrites, ...(agent ? { agent } : {}) });
    } catch (err) {
      answer = "deny";
      this.deps.emit({ type: "notice", level: "warn", source: "permissions", message: `permission prompt failed: ${errorMessage(err)}` });
    }
    // The asker had nobody to put this one to (a client that cannot be asked): as headless, the rule to add.
    if (answer === "unanswered") {
      this.deps.emit({ type: "permission_decision", callId, name: tool.name, decision: "deny", by: byText(v.why) });
      return unasked();
    }
    // "Always" grants exactly what was asked: each subject as text (a call no rule can describe is allowed once).
    // "Always for this project": the asker wrote `exact` to a file; for this session it is a session grant.
    const always = answer === "allow_session" || (answer === "allow_project" && exact.length > 0);
    if (always && suggestedRules.length) {
      const rules = subjects ? subjects.map((s) => exactRule(tool.name, s)) : suggestedRules.map(parseRule);
      const by = answer === "allow_project" ? "user:project" : "user:session";
      this.verdicts.addSessionGrant({ rules: rules.map((r) => r.raw), by, tool: tool.name }, rules, (subjects ?? []).map((s) => `${tool.name}\u0000${s}`));
    } else if (isAllow(answer)) answer = "allow_once";
    const decision = isAllow(answer) ? "allow" : "deny";
    this.deps.emit({ type: "permission_decision", callId, name: tool.name, decision, by: "user" });
    if (decision === "deny") {
      const said = typeof answer === "object" && answer && "message" in answer && typeof answer.message === "string" && answer.message.trim() ? ` The user says: ${answer.message.trim()}` : "";
      return { decision, by: "user", message: `Permission denied by the user: ${what} was not run.${said}` };
    }
    const by = answer === "allow_project" ? `user:project:${exact.join(", ")}` : answer === "allow_session" ? `user:session:${suggestedRule}` : "user:once";
    return { decision, by, message: "" };
  }

  /** Headless, a protected write is denied; the message names the exact rules that would allow it (no mode does). */
  private protectedDenial(tool: ToolEntry, v: Verdict, subjects: string[] | undefined, what: string, guard: Guard): Permit {
    const kind: SubjectKind = tool.definition.subjectKind === "path" ? "path" : "text";
    const named = guard.open.map((h) => h.subject).filter((s): s is string => s !== undefined);
    const needed = guard.baseAllows ? [...new Set(named)] : (subjects ?? []);
    const rules = needed.length && named.length === guard.open.length ? projectRules(tool.name, needed, kind) : [];
    const files = [...new Set(guard.open.map((h) => `${h.path} (${h.why})`))].join(", ");
    const how = rules.length
      ? `To allow it, add ${rules.map((r) => `"${r}"`).join(" and ")} to ${this.allowKey()} in ${this.deps.configFileHint}: only an allow rule naming exactly this call allows it, not a tool name, a pattern with wildcards or any permission mode.`
      : "No rule can name this call exactly; run it where you can answer the question.";
    return {
      decision: "deny",
      by: byText(v.why),
      message: `Permission denied: ${what} was not run: it would write ${files}, a file that decides what the agent may do, which is asked about in every permission mode, and there is no terminal to ask. ${how}`,
    };
  }

  private allowKey(): string {
    return this.deps.configFileHint.endsWith("package.json") ? "agent.permissions.allow" : "permissions.allow";
  }
}

/** Only the allow answers allow: anything else an asker returns (a typo, an object) denies. */
function isAllow(answer: unknown): answer is "allow_once" | "allow_session" | "allow_project" {
  return answer === "allow_once" || answer === "allow_session" || answer === "allow_project";
}

/** `tool(subject)` for a call with one certain subject, else the tool's name. */
function describeCall(name: string, subjects: string[] | undefined): string {
  const sole = soleSubject(subjects);
  return sole === undefined ? name : `${name}(${sole})`;
}

export function sameSubjects(a: Subjects, b: Subjects): boolean {
  if (a instanceof SubjectFailure || b instanceof SubjectFailure) return false;
  if (!a || !b) return a === b;
  return a.length === b.length && a.every((s, i) => s === b[i]);
}
