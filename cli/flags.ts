/**
 * Flags for this run only, as Claude Code has them: `--allowedTools` / `--disallowedTools` (rules in
 * config syntax, Claude Code's tool names working through the tools' aliases), `--add-dir` (an extra
 * workspace root), `--append-system-prompt`. The first three become config merged over the files
 * (`createHost({ config })`), so they are checked, shown by `agent config` and decided by the gate
 * exactly like rules in a file; the last is an inline plugin.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { AgentError, PERMISSION_MODES, type AgentConfig, type Host, type PermissionMode, type Plugin } from "../core/index.js";
import { type PluginEntry } from "../core/embed.js";
import { closestNames, ruleProblem, splitToolList } from "../kit/index.js";

export interface RunFlags {
  allow: string[];
  deny: string[];
  addDirs: string[];
  appendSystemPrompt?: string;
  /** `--plugin-dir`: plugin folders loaded for this run (absolute). */
  pluginDirs?: string[];
}

export const RULE_FLAGS: Record<string, "allow" | "deny"> = {
  "--allowedTools": "allow",
  "--allowed-tools": "allow",
  "--disallowedTools": "deny",
  "--disallowed-tools": "deny",
};

const RULE_SHAPE = /^[A-Za-z0-9_*?-]+(\(.*\))?$/;

/**
 * Whether a bare argument after `--allowedTools X` continues the list (Claude Code's flag takes several):
 * only when it clearly is one (`Bash(git log:*)`, `Read`, `mcp__github__*`, `Read,Edit`), so a prompt or a
 * command word that follows is never eaten.
 */
function continuesList(arg: string): boolean {
  if (arg.startsWith("-")) return false;
  const parts = splitToolList(arg);
  if (!parts.length || !parts.every((p) => RULE_SHAPE.test(p))) return false;
  return parts.some((p) => p.includes("(") || p.startsWith("mcp__") || /^[A-Z]/.test(p) || parts.length > 1);
}

/** Read a rule flag's values starting at `argv[i]` (the flag); returns the index of the last one read. */
export function takeRules(argv: string[], i: number, flag: string, inline: string | undefined, into: RunFlags): number {
  const values: string[] = [];
  if (inline !== undefined) values.push(inline);
  else {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("-")) throw new AgentError("E_USAGE", `${flag} needs rules, e.g. ${flag} "Bash(git log:*)" Read`);
    values.push(v);
    i++;
  }
  while (inline === undefined && argv[i + 1] !== undefined && continuesList(argv[i + 1])) values.push(argv[++i]);
  for (const rule of values.flatMap((v) => splitToolList(v))) {
    const problem = ruleProblem(rule);
    if (problem) throw new AgentError("E_USAGE", `${flag}: "${rule}" is not a rule: ${problem} (rules look like Read, "Bash(npm test:*)", "mcp__github__*")`);
    into[RULE_FLAGS[flag]].push(rule);
  }
  return i;
}

/** `--add-dir`: a folder that exists, absolute (relative to where you typed the command). */
export function addDir(value: string | undefined, into: RunFlags): void {
  if (!value) throw new AgentError("E_USAGE", "--add-dir needs a folder");
  const abs = path.resolve(value);
  let ok = false;
  try {
    ok = statSync(abs).isDirectory();
  } catch {
    /* reported below */
  }
  if (!ok) throw new AgentError("E_USAGE", `--add-dir ${value}: no such folder (${abs})`);
  into.addDirs.push(abs);
}

/** `--plugin-dir` (Claude Code's flag): a plugin folder loaded for this run, absolute. */
export function pluginDir(value: string | undefined, into: RunFlags): void {
  if (!value) throw new AgentError("E_USAGE", "--plugin-dir needs a folder");
  const abs = path.resolve(value);
  if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new AgentError("E_USAGE", `--plugin-dir ${value}: no such folder (${abs})`);
  (into.pluginDirs ??= []).push(abs);
}

/** The flags as config for this run, or undefined when none was given. */
export function flagConfig(f: RunFlags): AgentConfig | undefined {
  if (!f.allow.length && !f.deny.length && !f.addDirs.length) return undefined;
  const permissions = { ...(f.allow.length ? { allow: f.allow } : {}), ...(f.deny.length ? { deny: f.deny } : {}) };
  return { ...(Object.keys(permissions).length ? { permissions } : {}), ...(f.addDirs.length ? { workspace: { roots: f.addDirs } } : {}) };
}

/** A rule given on the command line that no registered tool answers to does nothing: say so. */
export function unmatchedFlagRules(host: Pick<Host, "tools">, f: RunFlags): string[] {
  const tools = host.tools.list();
  const out: string[] = [];
  for (const [flag, rules] of [["--allowedTools", f.allow], ["--disallowedTools", f.deny]] as const) {
    for (const rule of rules) {
      const name = rule.replace(/\(.*$/, "");
      if (/[*?]/.test(name)) continue;
      if (!tools.some((t) => t.name === name || t.aliases?.includes(name))) out.push(`${flag} "${rule}" names no registered tool, so it ${flag === "--allowedTools" ? "allows" : "denies"} nothing`);
    }
  }
  return out;
}

/**
 * `--append-system-prompt`: added after the system prompt on every request, after AGENTS.md and after
 * what every plugin adds (the skills catalog is `enforce: "post"`; this comes after it, last in order).
 */
export function flagPlugins(f: RunFlags): PluginEntry[] {
  const text = f.appendSystemPrompt;
  const dirs = f.pluginDirs ?? [];
  if (!text) return dirs;
  return [{ name: "cli-append-system-prompt", enforce: "post", beforeModelRequest: (request) => ({ ...request, system: `${request.system}\n\n${text}` }) }, ...dirs];
}

/**
 * Claude Code's mode names beside ours: `bypassPermissions` is `bypass`; `dontAsk` is `default` that
 * never asks (what a rule does not allow is denied, as in a headless run).
 */
const CLAUDE_MODE_NAMES: Record<string, { mode: PermissionMode; neverAsk?: boolean }> = {
  bypassPermissions: { mode: "bypass" },
  dontAsk: { mode: "default", neverAsk: true },
};

/** `--permission-mode <name>`: ours or Claude Code's; anything else is a usage error naming the closest. */
export function cliPermissionMode(name: string): { mode: PermissionMode; neverAsk?: boolean } {
  if (PERMISSION_MODES.includes(name as PermissionMode)) return { mode: name as PermissionMode };
  const claude = CLAUDE_MODE_NAMES[name];
  if (claude) return claude;
  const known = [...PERMISSION_MODES, ...Object.keys(CLAUDE_MODE_NAMES)];
  const near = closestNames(name, known);
  throw new AgentError("E_USAGE", `--permission-mode must be one of ${known.join(", ")}; got "${name}".${near.length ? ` Did you mean "${near[0]}"?` : ""}`);
}
