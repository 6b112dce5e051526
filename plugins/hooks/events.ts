/**
 * Claude Code's hook events: the ones this plugin runs, what their matcher filters, and the ones it
 * accepts in a settings file but never fires (they belong to features agent-host does not have).
 */

/** Events that run here, with what the matcher is tested against (undefined: no matcher, always runs). */
export const EVENTS = {
  PreToolUse: "tool name",
  PermissionRequest: "tool name",
  PostToolUse: "tool name",
  PostToolUseFailure: "tool name",
  UserPromptSubmit: undefined,
  SessionStart: "source",
  SessionEnd: "reason",
  Stop: undefined,
  PreCompact: "trigger",
  Notification: "notification type",
  SubagentStart: "agent type",
  SubagentStop: "agent type",
} as const;

export type HookEvent = keyof typeof EVENTS;

export function isHookEvent(name: string): name is HookEvent {
  return Object.hasOwn(EVENTS, name);
}

/** Claude Code events accepted in config and never fired here (`agent doctor` says so). */
export const NEVER_FIRED: Readonly<Record<string, string>> = {
  Setup: "there is no --init",
  UserPromptExpansion: "slash commands expand before UserPromptSubmit runs on what they send",
  PermissionDenied: "there is no auto mode",
  PostToolBatch: "not supported yet",
  StopFailure: "not supported yet",
  PostCompact: "not supported yet",
  TaskCreated: "there are no tasks",
  TaskCompleted: "there are no tasks",
  TeammateIdle: "there are no agent teams",
  InstructionsLoaded: "not supported yet",
  ConfigChange: "config is read once, at start",
  CwdChanged: "the working folder does not change",
  DirectoryAdded: "workspace roots are fixed at start",
  FileChanged: "files are not watched",
  WorktreeCreate: "there are no worktrees",
  WorktreeRemove: "there are no worktrees",
  Elicitation: "not supported yet",
  ElicitationResult: "not supported yet",
  MessageDisplay: "not supported yet",
};

/** Events where a failed hook can fail closed, and what that does. */
export const FAIL_CLOSED: Partial<Record<HookEvent, string>> = {
  PreToolUse: "denies the call",
  PermissionRequest: "denies the call",
  UserPromptSubmit: "blocks the prompt",
  PreCompact: "blocks the compaction",
};

/** Claude Code's names for the permission modes. */
export const CLAUDE_MODES: Record<string, string> = { default: "default", plan: "plan", acceptEdits: "acceptEdits", bypass: "bypassPermissions" };
