/**
 * Public types for plugin authors: the plugin object, what `setup` receives, the hook handlers and
 * what they are handed. Everything a built-in plugin uses is here; nothing more is available to it.
 */
// Declared where the layering needs them (issue 21: no import cycle, types included); exported here
// under the names plugin authors and core modules have always imported.

/** The plugin object's typed hook methods: derived from the hook table (hooks.ts). */
export type { PluginHooks } from "./hooks/hooks.js";
export type { AgentRegistrar, CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "./registry/registrar-types.js";
export type { BeforeToolCallDecision, ConfigEnv, ToolCallInfo } from "./hooks/hook-types.js";
export type { HostProblem, Plugin, PluginAuditRecord, PluginConfigSection, PluginContext, PluginFactory, PluginStatus } from "./contract.js";
