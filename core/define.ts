/** `defineX` helpers: identity functions that give plugin authors full type inference. */
import type { AgentConfig } from "./config-schema.js";
import type { ModelProvider } from "./model.js";
import type { CommandDefinition, Plugin, PluginFactory, SkillDefinition, ToolDefinition } from "./types.js";

export function definePlugin<O = Record<string, unknown>>(plugin: Plugin | PluginFactory<O>): typeof plugin {
  return plugin;
}

/** Define a tool; the input type is inferred from the zod schema. */
export function defineTool<I>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return tool;
}

export function defineCommand(command: CommandDefinition): CommandDefinition {
  return command;
}

export function defineSkill(skill: SkillDefinition): SkillDefinition {
  return skill;
}

export function defineProvider(provider: ModelProvider): ModelProvider {
  return provider;
}

export function defineConfig(config: AgentConfig): AgentConfig {
  return config;
}
