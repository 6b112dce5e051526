/** Hosts with the real tools, hooks and agents plugins and a scripted model (parent and subagents share it, turn by turn). */
import { builtinPlugins } from "../../../cli/builtins.js";
import type { AgentConfig } from "../../../core/index.js";
import type { CreateHostOptions } from "../../../core/embed.js";
import { scriptedProvider, type ScriptedProvider, type ScriptedTurn } from "../../../testing/index.js";
import { testHost, type TestHost } from "../../helpers/host.js";
import type { TempProject } from "../../helpers/project.js";

export interface AgentsHost extends TestHost {
  model: ScriptedProvider;
}

export async function agentsHost(config: AgentConfig, model: ScriptedTurn[], options: CreateHostOptions & { project?: TempProject } = {}): Promise<AgentsHost> {
  const provider = scriptedProvider(model);
  const t = await testHost({
    builtins: builtinPlugins.filter((b) => ["tools", "sessions", "hooks", "agents"].includes(b.name)),
    ...options,
    config: { model: "scripted:test", ...config },
    plugins: [{ name: "scripted-model", providers: [provider] }, ...(options.plugins ?? [])],
  });
  return { ...t, model: provider };
}

/** A Claude Code agent file. */
export function agentFile(fields: Record<string, string>, body: string): string {
  return `---\n${Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join("\n")}\n---\n\n${body}\n`;
}
