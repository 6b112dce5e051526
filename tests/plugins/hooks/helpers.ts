/**
 * Hosts with the real tools and hooks plugins and hook scripts from tests/fixtures/hooks, run as real
 * processes; a scripted model for the events the agent loop fires.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { quote } from "shell-quote";
import { builtinPlugins } from "../../../cli/builtins.js";
import type { AgentConfig } from "../../../core/index.js";
import type { CreateHostOptions } from "../../../core/embed.js";
import { scriptedProvider, type ScriptedProvider, type ScriptedTurn } from "../../../testing/index.js";
import { testHost, type TestHost } from "../../helpers/host.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import type { TempProject } from "../../helpers/project.js";

export const HOOK_SCRIPTS = path.join(REPO_ROOT, "tests", "fixtures", "hooks");

/** A hook command running a bash fixture with arguments (quoted as a shell would need). */
export const bash = (script: string, ...args: (string | number)[]) => quote(["bash", path.join(HOOK_SCRIPTS, script), ...args.map(String)]);
/** A hook command running a Node fixture. */
export const node = (script: string, ...args: (string | number)[]) => quote([process.execPath, path.join(HOOK_SCRIPTS, script), ...args.map(String)]);

/** `{ Event: [{ matcher, hooks: [{ type: "command", command, ...extra }] }] }` for one hook. */
export function hook(event: string, command: string, extra: Record<string, unknown> = {}, matcher?: string) {
  return { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command, ...extra }] }] };
}

export interface HooksHost extends TestHost {
  model?: ScriptedProvider;
}

/** A host with the tools and hooks plugins, `config` (hooks and all) as a config file would give it, and an optional scripted model. */
export async function hooksHost(config: AgentConfig, options: CreateHostOptions & { project?: TempProject; model?: ScriptedTurn[] } = {}): Promise<HooksHost> {
  const { model, ...rest } = options;
  const provider = model ? scriptedProvider(model) : undefined;
  const t = await testHost({
    builtins: builtinPlugins.filter((b) => b.name === "tools" || b.name === "hooks"),
    ...rest,
    config: { ...(provider ? { model: "scripted:test" } : {}), ...config },
    plugins: [...(provider ? [{ name: "scripted-model", providers: [provider] }] : []), ...(rest.plugins ?? [])],
  });
  return { ...t, model: provider };
}

/** What record.sh / record.mjs wrote: each run's stdin (parsed) and the project variables it saw. */
export function readLog(file: string): { inputs: Record<string, any>[]; env: string[] } {
  if (!existsSync(file)) return { inputs: [], env: [] };
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  return {
    inputs: lines.filter((l) => !l.startsWith("env ")).map((l) => JSON.parse(l) as Record<string, any>),
    env: lines.filter((l) => l.startsWith("env ")).map((l) => l.slice(4)),
  };
}

export function hookAudit(records: Record<string, any>[]): Record<string, any>[] {
  return records.filter((r) => r.kind === "hook");
}
