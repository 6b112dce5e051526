/**
 * Where the user's own config lives: `$AGENT_CONFIG_HOME`, else `$XDG_CONFIG_HOME/agent`, else `~/.config/agent`;
 * Claude Code's user folder; the agent's config files by name.
 */
import { homedir } from "node:os";
import path from "node:path";

export function defaultUserConfigDir(): string {
  if (process.env.AGENT_CONFIG_HOME) return process.env.AGENT_CONFIG_HOME;
  const xdg = process.env.XDG_CONFIG_HOME || path.join(homedir(), ".config");
  return path.join(xdg, "agent");
}

/** Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeUserDir(): string {
  return process.env.CLAUDE_CONFIG_DIR || path.join(homedir(), ".claude");
}

/** `agent.config.*` and `.agentrc*`: the agent's own config files, by name. */
export function isAgentConfigName(name: string): boolean {
  return /^agent\.config(\.|$)/.test(name) || name.startsWith(".agentrc");
}
