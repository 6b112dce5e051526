/**
 * A plugin package as an agent-host plugin object, on the public API only: its commands through
 * `commandDirs` (the markdown-commands plugin names them `plugin:command`), its skills through
 * `skillDirs`, its hooks and MCP servers as `sections` entries for the hooks and MCP plugins, with
 * `${CLAUDE_PLUGIN_ROOT}` / `${CLAUDE_PLUGIN_DATA}` (and Agent Plugins' `${PLUGIN_ROOT}` /
 * `${PLUGIN_DATA}`) set. What it ships that does not run here is reported as a warning in setup.
 */
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "../../core/index.js";
import { readAgents } from "./agents.js";
import { isPlainObject, type PluginPackage } from "./package.js";

export interface PluginPlacement {
  /** The plugin's data folder (`${CLAUDE_PLUGIN_DATA}`), kept across updates. */
  dataDir: string;
  /** `userConfig` values given at install or enable time. */
  userConfig?: Record<string, string>;
}

/** Agents are registered (`host.agents`) but nothing runs a subagent yet: said until issue 22's `task` tool exists. */
function agentsNote(pkg: PluginPackage): string | undefined {
  return pkg.agentFiles.length ? `${pkg.agentFiles.length} agent(s) in agents/: registered, but not supported yet (nothing runs subagents)` : undefined;
}

/** Every part that will not run, one line each (`agent plugin list`, `agent doctor`). */
export function notSupported(pkg: PluginPackage): string[] {
  return [agentsNote(pkg), ...pkg.unsupported].filter((s): s is string => !!s);
}

export function toPlugin(pkg: PluginPackage, where: PluginPlacement): Plugin {
  mkdirSync(where.dataDir, { recursive: true, mode: 0o700 });
  const vars: Record<string, string> = { CLAUDE_PLUGIN_ROOT: pkg.dir, CLAUDE_PLUGIN_DATA: where.dataDir, PLUGIN_ROOT: pkg.dir, PLUGIN_DATA: where.dataDir };
  const options = where.userConfig ?? {};
  const env: Record<string, string> = { ...vars };
  for (const [k, v] of Object.entries(options)) env[`CLAUDE_PLUGIN_OPTION_${k.toUpperCase()}`] = v;
  const sections: Record<string, unknown> = {};
  if (Object.keys(pkg.hooks).length) sections.hooks = withHookEnv(pkg.hooks, env, vars, options);
  if (Object.keys(pkg.mcpServers).length) sections.mcpServers = serversOf(pkg, vars, options);
  const commandDirs = [...pkg.commandDirs, ...(pkg.commandFiles.length ? [linkFolder(where.dataDir, "commands", pkg.commandFiles)] : [])];
  const skillDirs = [...pkg.skillDirs, ...(pkg.skillFolders.length ? [linkFolder(where.dataDir, "skills", pkg.skillFolders)] : [])];
  const notes = notSupported(pkg);
  const { agents, problems } = readAgents(pkg.name, pkg.agentFiles);
  return {
    name: pkg.name,
    ...(pkg.version ? { version: pkg.version } : {}),
    agents,
    commandDirs,
    skillDirs,
    sections,
    setup(ctx) {
      // A `sensitive` userConfig value is a secret wherever it shows up (a server's command line, its output, the audit log).
      for (const [key, field] of Object.entries(pkg.userConfig)) if (field?.sensitive && options[key]) ctx.addSecret(options[key], `plugin ${pkg.name} userConfig.${key}`);
      for (const note of notes) ctx.report({ kind: "plugin", level: "warning", name: pkg.name, message: `Plugin ${pkg.name}: ${note}${note.includes("registered") ? "" : "; not loaded"}` });
      for (const problem of problems) ctx.report({ kind: "plugin", level: "warning", name: pkg.name, message: `Plugin ${pkg.name}: ${problem}` });
      for (const problem of pkg.problems) ctx.report({ kind: "plugin", name: pkg.name, message: `Plugin ${pkg.name}: ${problem}` });
    },
  };
}

/** The name a plugin's server gets (Claude Code's tools read `mcp__plugin_<plugin>_<server>__<tool>`). */
export function serverName(plugin: string, server: string): string {
  return `plugin_${plugin}_${server}`;
}

function serversOf(pkg: PluginPackage, vars: Record<string, string>, options: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(pkg.mcpServers)) {
    const expanded = expand(server, vars, options) as Record<string, unknown>;
    // A relative working folder is the plugin's (Agent Plugins' `cwd`); a server without one starts there too.
    // The variables are replaced in the entry but not put in the server's env: the MCP plugin treats every
    // env value as a secret, and the plugin's own folder redacted from every output would help no one.
    if (expanded.command !== undefined) expanded.cwd = typeof expanded.cwd === "string" ? path.resolve(pkg.dir, expanded.cwd) : pkg.dir;
    out[serverName(pkg.name, name)] = expanded;
  }
  return out;
}

/** Hook handlers with the placeholders replaced in their command lines (as Claude Code does) and the variables set. */
function withHookEnv(hooks: Record<string, unknown[]>, env: Record<string, string>, vars: Record<string, string>, options: Record<string, string>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    out[event] = groups.map((g) => {
      if (!isPlainObject(g) || !Array.isArray(g.hooks)) return g;
      const handlers = g.hooks.map((h) => {
        if (!isPlainObject(h)) return h;
        const own = isPlainObject(h.env) ? (h.env as Record<string, string>) : {};
        return { ...(expand(h, vars, options) as Record<string, unknown>), env: { ...env, ...own } };
      });
      return { ...g, hooks: handlers };
    });
  }
  return out;
}

/** `${CLAUDE_PLUGIN_ROOT}` and the like, and `${user_config.KEY}`, in every string of a value; other `${VAR}` left for the owner. */
function expand(value: unknown, vars: Record<string, string>, options: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{(user_config\.)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, user: string | undefined, name: string) => (user ? (options[name] ?? whole) : (vars[name] ?? whole)));
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, vars, options));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, vars, options)]));
  return value;
}

/**
 * A folder of links to files or folders named one by one (a manifest's single command file, a skill
 * folder picked from a repository), so the commands and skills plugins read them as any folder.
 */
function linkFolder(dataDir: string, kind: string, targets: string[]): string {
  const dir = path.join(dataDir, ".links", kind);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const target of targets) {
    try {
      symlinkSync(target, path.join(dir, path.basename(target)));
    } catch {
      // Two targets with one name: the first stays.
    }
  }
  return dir;
}
