/**
 * What a plugin registers through, one registrar per registration kind (kinds.ts builds them): below the
 * kinds table and the plugin contract, which both name them.
 */
import type { ModelProvider } from "../loop/model.js";
import type { ToolSource } from "./tool-sources.js";
import type { AgentDefinition, CommandDefinition, SkillDefinition, ToolDefinition } from "../types.js";

/** Plugin-scoped registration API (what register hooks and `setup` receive), one per kind (kinds.ts). */
export interface Registrar<Def> {
  /** Register a definition; returns false (and reports why) if the gate rejects it. */
  add(def: Def): boolean;
  /** Remove one this plugin registered (e.g. a tool, when an MCP server's tool list changes); only those. */
  remove(name: string): boolean;
}
export interface ToolRegistrar extends Registrar<ToolDefinition> {
  /**
   * Register a source of tools that costs something to load (a server to start): the host calls its
   * `load` when a call names a tool it `provides`, when a run starts, or when everything is listed.
   * Returns false (and reports why) if it is malformed or its name is taken.
   */
  addSource(source: ToolSource): boolean;
  removeSource(name: string): boolean;
}
export type CommandRegistrar = Registrar<CommandDefinition>;
export type SkillRegistrar = Registrar<SkillDefinition>;
export type ProviderRegistrar = Registrar<ModelProvider>;
export type AgentRegistrar = Registrar<AgentDefinition>;
