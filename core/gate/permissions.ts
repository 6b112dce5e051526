/**
 * Permission decisions: explicit rules first (deny beats ask beats allow), then the mode's default
 * for the tool's risk. The rule grammar and matching (`read_file`, `mcp__github__*`,
 * `run_command(npm test:*)`) are kit's (kit/rules/); the order and the defaults are the kernel's.
 * `Verdicts` applies them to a call: its subjects, the session's grants and the protected paths it
 * would write, before anyone (a `permission` handler, the user) is asked.
 */
import { errorMessage } from "../../kit/errors.js";
import { freezeCopy } from "../../kit/freeze.js";
import { isThenable } from "../../kit/thenable.js";
import { allowCoverage, metRule, namesExactly, unmetPathRules } from "../../kit/rules/match.js";
import type { ParsedRule, PermissionRules, RuleTarget, SubjectKind } from "../../kit/rules/parse.js";
import { pathSubjects, projectPath } from "../../kit/rules/path-pattern.js";
import type { ToolEntry } from "../registry/registry.js";
import type { PermissionMode, Risk, SessionGrant, Workspace } from "../types.js";
import { judgedPaths, recordJudged } from "./judged-paths.js";
import { judgeWrites, type ProtectedWrite } from "../../kit/fs/protected-paths.js";
import { protectedPlaces } from "./protected-paths.js";
import { SubjectFailure, type Provenance, type Subjects, type Verdict } from "./verdict.js";

export type Decision = "allow" | "ask" | "deny";

/** The rules' and the mode's verdict, with why as data: deny rules, then plan mode, ask rules, allow rules, the mode. */
export function judge(rules: PermissionRules, mode: PermissionMode, toolName: RuleTarget, risk: Risk, subjects: string[] | undefined, kind: SubjectKind = "text"): Verdict {
  const deny = matching(rules.deny, toolName, subjects, kind);
  if (deny) return { decision: "deny", why: deny };
  const ask = matching(rules.ask, toolName, subjects, kind);
  if (mode === "plan" && risk !== "read") return { decision: "deny", why: { kind: "mode", mode: "plan" } };
  if (ask) return { decision: "ask", why: ask };
  const allow = allowCoverage(rules.allow, toolName, subjects, kind);
  if (allow) return { decision: "allow", why: { kind: "rule", rule: allow.map((r) => r.raw).join(", ") } };
  return { decision: modeDefault(mode, risk), why: { kind: "mode", mode } };
}

/** The deny (or ask) rule a call meets, as provenance: `uncertain` when the call cannot be judged by its text. */
function matching(list: ParsedRule[], toolName: RuleTarget, subjects: string[] | undefined, kind: SubjectKind): Provenance | undefined {
  const met = metRule(list, toolName, subjects, kind);
  return met && { kind: met.uncertain ? "uncertain" : "rule", rule: met.rule.raw };
}

export function modeDefault(mode: PermissionMode, risk: Risk): Decision {
  switch (mode) {
    case "bypass":
      return "allow";
    case "plan":
      return risk === "read" ? "allow" : "deny";
    case "acceptEdits":
      return risk === "read" || risk === "write" ? "allow" : "ask";
    default:
      return risk === "read" ? "allow" : "ask";
  }
}

/** The protected files a call would write (see protected-paths.ts); a `SubjectFailure` when the tool's `writes` threw. */
export type Guarded = ProtectedWrite[] | SubjectFailure;

/** What protected paths add to a question: the files still needing a yes, and whether the rules and mode alone allowed the call. */
export interface Guard {
  open: ProtectedWrite[];
  baseAllows: boolean;
}
export const NO_GUARD: Guard = { open: [], baseAllows: false };

/**
 * A session's verdicts on calls: the rules, the mode and the grants (session, turn) over a call's subjects,
 * with protected paths on top. Asked by the permission step and by `permission` handlers' views alike.
 */
export class Verdicts {
  mode: PermissionMode = "default";
  /** Rules granted with "allow always for this session". */
  private readonly sessionAllow: ParsedRule[] = [];
  /** Rules granted until the end of the current (or next) run: a trusted folder's command's allowed-tools. */
  private readonly turnAllow: ParsedRule[] = [];
  /** Bumped whenever a grant is added or a turn's grants end: cached verdicts are keyed by it. */
  private grantsVersion = 0;
  /** `tool\0subject` of each subject the user allowed "always" in a question: names it exactly, for protected paths. */
  private readonly sessionExact = new Set<string>();
  /** Each session grant as given (an answer, a plugin's request), so it can be listed and revoked. */
  private readonly sessionGrants: { grant: SessionGrant; rules: ParsedRule[]; exact: string[] }[] = [];
  /**
   * Decisions for tools without a permission subject, which depend only on the rules, the mode, the
   * session grants and the tool (MCP tools are all like this): computed once, not on every call.
   */
  private readonly cached = new WeakMap<ToolEntry, { rules: PermissionRules; mode: PermissionMode; risk: string; grants: number; verdict: Verdict }>();

  constructor(private readonly deps: { readonly rules: PermissionRules; readonly workspace: Workspace; readonly audit: { readonly file?: string } }) {}

  addSessionGrant(grant: SessionGrant, rules: ParsedRule[], exact: string[]): void {
    this.sessionGrants.push({ grant: Object.freeze({ ...grant, rules: Object.freeze([...grant.rules]) }) as SessionGrant, rules, exact });
    this.sessionAllow.push(...rules);
    for (const key of exact) this.sessionExact.add(key);
    this.grantsVersion++;
  }

  addTurnGrant(rules: ParsedRule[]): void {
    this.turnAllow.push(...rules);
    this.grantsVersion++;
  }

  /** The grants of this session, oldest first (numbered from 1 by `/permissions`). */
  listSessionGrants(): SessionGrant[] {
    return this.sessionGrants.map((g) => g.grant);
  }

  /** Take back session grant `index` (0-based): its rules no longer allow anything. */
  revokeSessionGrant(index: number): SessionGrant | undefined {
    const entry = Number.isInteger(index) ? this.sessionGrants[index] : undefined;
    if (!entry) return undefined;
    this.sessionGrants.splice(index, 1);
    for (const r of entry.rules) {
      const at = this.sessionAllow.indexOf(r);
      if (at >= 0) this.sessionAllow.splice(at, 1);
    }
    for (const key of entry.exact) if (!this.sessionGrants.some((g) => g.exact.includes(key))) this.sessionExact.delete(key);
    this.grantsVersion++;
    return entry.grant;
  }

  /** A run ended: the grants of its turn end with it. */
  endTurn(): void {
    if (!this.turnAllow.length) return;
    this.turnAllow.length = 0;
    this.grantsVersion++;
  }

  /** What pattern rules match for this call; a `SubjectFailure` when the tool's permissionSubject threw. */
  /** A promise only for tools whose permissionSubject is async (run_command parses the shell line). */
  subjects(tool: ToolEntry, input: unknown): Subjects | Promise<Subjects> {
    const fn = tool.definition.permissionSubject;
    if (!fn) return undefined;
    const root = this.deps.workspace.root;
    const asPath = tool.definition.subjectKind === "path";
    // A path's subjects are fixed at the first look: the tool then opens only where they led (judged-paths.ts).
    const known = asPath ? judgedPaths(input) : undefined;
    if (known) return [...known.subjects];
    const normalize = (s: unknown): Subjects => {
      if (s === undefined || s === null) return undefined;
      const list = Array.isArray(s) ? s.map(String) : [String(s)];
      if (!asPath) return list;
      const subjects = pathSubjects(root, list);
      recordJudged(input, root, subjects, unmetPathRules(this.deps.rules, tool.view, subjects, root));
      return subjects;
    };
    try {
      const s = fn(input, { workspace: this.deps.workspace }) as unknown;
      if (isThenable(s)) return Promise.resolve(s).then(normalize, (err: unknown) => new SubjectFailure(errorMessage(err)));
      return normalize(s);
    } catch (err) {
      return new SubjectFailure(errorMessage(err));
    }
  }

  /**
   * The protected files a call would write: from the tool's `writes`, or for a `write` tool with path
   * subjects, its subjects. A promise only when `writes` is async.
   */
  protectedWrites(tool: ToolEntry, input: unknown, subjects: Subjects): Guarded | Promise<Guarded> {
    const def = tool.definition;
    if (subjects instanceof SubjectFailure) return [];
    const fromSubjects = !def.writes && (def.risk === "write" || tool.risk === "write") && def.subjectKind === "path";
    if (!def.writes && !fromSubjects) return [];
    const judge = (list: Parameters<typeof judgeWrites>[0]): Guarded => {
      try {
        const { root, roots } = this.deps.workspace;
        return judgeWrites(list, { root, places: protectedPlaces(roots, this.deps.audit.file), display: (abs) => projectPath(root, abs) });
      } catch (err) {
        return new SubjectFailure(`checking the files it writes: ${errorMessage(err)}`);
      }
    };
    if (fromSubjects) return judge(subjects ?? []);
    const failed = (err: unknown) => new SubjectFailure(`its writes() threw: ${errorMessage(err)}`);
    try {
      const list = def.writes!(freezeCopy(input) as never, { workspace: this.deps.workspace });
      return isThenable(list) ? Promise.resolve(list).then(judge, failed) : judge(list);
    } catch (err) {
      return failed(err);
    }
  }

  /**
   * The rules' verdict with protected paths on top: a file tools never write denies; one that decides
   * what the agent may do asks (in every mode, never answerable by a plugin's allow) unless an allow rule
   * names exactly its subject. Deny rules, ask rules and plan mode keep their verdict.
   */
  private guarded(tool: ToolEntry, base: Verdict, subjects: string[] | undefined, hits: ProtectedWrite[]): { verdict: Verdict; guard: Guard } {
    const kind: SubjectKind = tool.definition.subjectKind === "path" ? "path" : "text";
    const open = hits.filter((h) => h.level === "ask" && !this.exactlyAllowed(tool, h.subject, kind));
    const guard = { open, baseAllows: base.decision === "allow" };
    const never = hits.find((h) => h.level === "never");
    if (base.decision === "deny") return { verdict: base, guard };
    if (never) return { verdict: { decision: "deny", why: { kind: "protected", paths: never.path } }, guard };
    if (!open.length || (base.decision === "ask" && base.why.kind !== "mode")) return { verdict: base, guard };
    return { verdict: { decision: "ask", why: { kind: "protected", paths: [...new Set(open.map((h) => h.path))].join(", ") } }, guard };
  }

  /** Whether an allow rule (config, a session grant, an "always" answer) names exactly this subject. */
  private exactlyAllowed(tool: ToolEntry, subject: string | undefined, kind: SubjectKind): boolean {
    if (subject === undefined) return false;
    if (this.sessionExact.has(`${tool.name}\u0000${subject}`)) return true;
    return [...this.deps.rules.allow, ...this.sessionAllow, ...this.turnAllow].some((r) => namesExactly(r, tool.view, subject, kind));
  }

  /** Subjects, protected writes and the verdict on both, for an input a handler sees or rewrote. */
  async evaluate(tool: ToolEntry, input: unknown): Promise<{ subjects: Subjects; verdict: Verdict; guard: Guard }> {
    const subjects = await this.subjects(tool, input);
    const { failed, verdict, guard } = this.decideOn(tool, subjects, await this.protectedWrites(tool, input, subjects));
    return { subjects: failed ?? subjects, verdict, guard };
  }

  /** The verdict on a call's subjects and protected writes; `failed` (a deny) when the tool could not tell either. */
  decideOn(tool: ToolEntry, subjects: Subjects, hits: Guarded): { failed?: SubjectFailure; verdict: Verdict; guard: Guard } {
    const failed = subjects instanceof SubjectFailure ? subjects : hits instanceof SubjectFailure ? hits : undefined;
    if (failed) return { failed, verdict: { decision: "deny", why: { kind: "subject-failed" } }, guard: NO_GUARD };
    const list = subjects as string[] | undefined;
    return this.guarded(tool, tool.definition.permissionSubject ? this.verdict(tool, list) : this.cachedVerdict(tool), list, hits as ProtectedWrite[]);
  }

  verdict(tool: ToolEntry, subjects: string[] | undefined): Verdict {
    const kind = tool.definition.subjectKind === "path" ? "path" : "text";
    const v = judge(this.deps.rules, this.mode, tool.view, riskOf(tool, subjects), subjects, kind);
    if (v.decision === "ask" && (this.sessionAllow.length || this.turnAllow.length)) {
      // Answers of "always this session" (and a turn's grants) combine with the config's allow rules to cover every part of a call.
      const granted = allowCoverage([...this.sessionAllow, ...this.turnAllow, ...this.deps.rules.allow], tool.view, subjects, kind);
      const turn = granted?.some((r) => this.turnAllow.includes(r));
      if (granted) return { decision: "allow", why: { kind: "grant", scope: turn ? "turn" : "session", rules: granted.map((r) => r.raw).join(", ") } };
    }
    return v;
  }

  /** The verdict for a call; for a tool without a permission subject, the one computed for the same rules, mode and grants. */
  private cachedVerdict(tool: ToolEntry): Verdict {
    const { rules } = this.deps;
    const grants = this.grantsVersion;
    const c = this.cached.get(tool);
    if (c && c.rules === rules && c.mode === this.mode && c.risk === tool.risk && c.grants === grants) return c.verdict;
    const verdict = this.verdict(tool, undefined);
    this.cached.set(tool, { rules, mode: this.mode, risk: tool.risk, grants, verdict });
    return verdict;
  }
}

/** The risk a call is judged at: `read` where the tool says these subjects only read (see `ToolDefinition.readOnly`). */
function riskOf(tool: ToolEntry, subjects: string[] | undefined): ToolEntry["risk"] {
  const readOnly = tool.definition.readOnly;
  if (!readOnly || !subjects?.length || tool.risk === "read") return tool.risk;
  try {
    return readOnly(subjects) === true ? "read" : tool.risk;
  } catch {
    return tool.risk;
  }
}
