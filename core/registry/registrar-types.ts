/**
 * What a plugin registers through, one registrar per registration kind (kinds.ts builds them): below the
 * kinds table and the plugin contract, which both name them.
 */
import type { ModelProvider } from "../loop/model.js";
import type { ToolSource } from "./tool-sources.js";
import type { AgentDefinition, CommandDefinition, SkillDefinition, ToolDefinition } from "../types.js";

/** Plugin-scoped registration API (what register hooks and `setup` receive), one per kind (kinds.ts). */
export interface ToolRegistrar {
  /** Register a tool; returns false (and reports why) if the gate rejects it. */
  add(def: ToolDefinition): boolean;
  /** Remove a tool this plugin registered (e.g. when an MCP server's tool list changes). */
  remove(name: string): boolean;
  /**
   * Register a source of tools that costs something to load (a server to start): the host calls its
   * `load` when a call names a tool it `provides`, when a run starts, or when everything is listed.
   * Returns false (and reports why) if it is malformed or its name is taken.
   */
  addSource(source: ToolSource): boolean;
  removeSource(name: string): boolean;
}
export interface CommandRegistrar {
  add(def: CommandDefinition): boolean;
  remove(name: string): boolean;
}
export interface SkillRegistrar {
  add(def: SkillDefinition): boolean;
  remove(name: string): boolean;
}
export interface ProviderRegistrar {
  add(provider: ModelProvider): boolean;
  remove(name: string): boolean;
}
export interface AgentRegistrar {
  /** Register a subagent; returns false (and reports why) if the gate rejects it. */
  add(def: AgentDefinition): boolean;
  remove(name: string): boolean;
}