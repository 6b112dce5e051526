/**
 * Running a slash command: find it, hand it a context with the plugin view of the host, audit the run.
 * A command the user typed may change the permission mode on their behalf, only while it runs.
 */
import type { AuditLog } from "../gate/audit.js";
import { AgentError, errorMessage } from "../../kit/errors.js";
import type { PluginHost } from "../host-types.js";
import type { CommandEntry, Registry } from "../registry/registry.js";
import type { CommandContext, CommandResult, PermissionMode, SessionGrant } from "../types.js";

export interface CommandDeps {
  commands: Registry<CommandEntry>;
  audit: AuditLog;
  pluginHost(): PluginHost;
  setPermissionMode(mode: PermissionMode, by: string): void;
  revokeGrant(index: number, by: string): SessionGrant | undefined;
}

export async function runCommand(deps: CommandDeps, line: string, opts: { signal?: AbortSignal; asUser?: boolean }): Promise<CommandResult> {
  const m = /^\/?(\S+)\s*([\s\S]*)$/.exec(line.trim());
  const name = m?.[1] ?? "";
  const cmd = deps.commands.get(name);
  if (!cmd) throw new AgentError("E_COMMAND_NOT_FOUND", `Unknown command /${name}. Type /help for the list.`);
  const args = m?.[2] ?? "";
  const byUser = opts.asUser === true;
  let running = true;
  const ctx: CommandContext = Object.freeze({
    host: deps.pluginHost(),
    signal: opts.signal ?? new AbortController().signal,
    byUser,
    setPermissionMode(mode: PermissionMode) {
      if (!byUser || !running) {
        throw new AgentError("E_TOOL_DENIED", `/${name} cannot change the permission mode: only a command the user typed may, while it runs.`);
      }
      deps.setPermissionMode(mode, `user:/${name} (plugin ${cmd.plugin})`);
    },
    revokeGrant(n: number) {
      return deps.revokeGrant(n - 1, `${byUser ? "user:" : ""}/${name} (plugin ${cmd.plugin})`);
    },
  });
  const started = performance.now();
  try {
    const out = await cmd.definition.run(args, ctx);
    deps.audit.write({ kind: "command", source: cmd.source, name, args: args || undefined, outcome: "ok", durationMs: performance.now() - started });
    if (typeof out === "string") return { output: out };
    return out && typeof out === "object" ? out : {};
  } catch (err) {
    deps.audit.write({ kind: "command", source: cmd.source, name, outcome: "error", error: errorMessage(err), durationMs: performance.now() - started });
    return { output: `Command /${name} failed: ${errorMessage(err)}` };
  } finally {
    running = false;
  }
}
