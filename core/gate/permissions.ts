/**
 * Permission decisions: explicit rules first (deny beats ask beats allow), then the mode's default
 * for the tool's risk. The rule grammar and matching (`read_file`, `mcp__github__*`,
 * `run_command(npm test:*)`) are kit's (kit/rules/); the order and the defaults are the kernel's.
 */
import { allowCoverage, metRule } from "../../kit/rules/match.js";
import type { ParsedRule, PermissionRules, RuleTarget, SubjectKind } from "../../kit/rules/parse.js";
import type { PermissionMode, Risk } from "../types.js";
import { byText, type Provenance, type Verdict } from "./verdict.js";

export type Decision = "allow" | "ask" | "deny";

export interface PermissionVerdict {
  decision: Decision;
  /** The rule that decided, or `mode:<mode>`. */
  by: string;
}

export function decide(
  rules: PermissionRules,
  mode: PermissionMode,
  toolName: RuleTarget,
  risk: Risk,
  subjects: string[] | undefined,
  kind: SubjectKind = "text",
): PermissionVerdict {
  const v = judge(rules, mode, toolName, risk, subjects, kind);
  return { decision: v.decision, by: byText(v.why) };
}

/** What `decide` says, with why as data (`Verdict`): deny rules, then plan mode, ask rules, allow rules, the mode. */
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
