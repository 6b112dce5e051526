/** The kernel's verdict on a call (`judge`), with its provenance as the `by` text records and handlers see. */
import type { PermissionRules, RuleTarget, SubjectKind } from "../../kit/rules/parse.js";
import { judge } from "../../core/gate/permissions.js";
import { byText } from "../../core/gate/verdict.js";
import type { PermissionMode, Risk } from "../../core/types.js";

export function decide(
  rules: PermissionRules,
  mode: PermissionMode,
  toolName: RuleTarget,
  risk: Risk,
  subjects: string[] | undefined,
  kind: SubjectKind = "text",
): { decision: "allow" | "ask" | "deny"; by: string } {
  const v = judge(rules, mode, toolName, risk, subjects, kind);
  return { decision: v.decision, by: byText(v.why) };
}
