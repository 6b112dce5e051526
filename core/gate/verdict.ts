/**
 * What the permission step decides before anyone is asked, and why, as data: code branches on
 * `why.kind`, and `byText` is the one place that turns it into the `by` text of audit records, events
 * and what `permission` handlers see (`mode:default`, the rule, `protected:<paths>` …).
 */
import type { PermissionMode } from "../types.js";

/** Why a verdict was reached. */
export type Provenance =
  /** A permission rule (allow: every rule that covered a part, joined). */
  | { kind: "rule"; rule: string }
  /** The permission mode's default for the tool's risk. */
  | { kind: "mode"; mode: PermissionMode }
  /** A deny (or ask) rule for the tool met by a call that cannot be judged by its text. */
  | { kind: "uncertain"; rule: string }
  /** Rules granted by "always this session" answers, or for the current turn. */
  | { kind: "grant"; scope: "session" | "turn"; rules: string }
  /** Files the call would write that decide what the agent may do (or that tools never write). */
  | { kind: "protected"; paths: string }
  /** The tool's permissionSubject (or writes) threw. */
  | { kind: "subject-failed" }
  /** A `permission` handler's vote. */
  | { kind: "plugin"; plugin: string; reason?: string };

export type Verdict = { decision: "allow" | "deny" | "ask"; why: Provenance };

/** A tool's permissionSubject threw: the call is denied (no subject means no deny rule could match it). */
export class SubjectFailure {
  constructor(readonly message: string) {}
}

export type Subjects = string[] | undefined | SubjectFailure;

/** The `by` text of a verdict. */
export function byText(why: Provenance): string {
  switch (why.kind) {
    case "rule":
      return why.rule;
    case "mode":
      return `mode:${why.mode}`;
    case "uncertain":
      return `uncertain:${why.rule}`;
    case "grant":
      return `${why.scope}:${why.rules}`;
    case "protected":
      return `protected:${why.paths}`;
    case "subject-failed":
      return "permissionSubject";
    case "plugin":
      return `plugin:${why.plugin}${why.reason ? `: ${why.reason}` : ""}`;
  }
}
