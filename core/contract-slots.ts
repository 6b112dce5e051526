/**
 * Two types a lower contract module names but the contract (contract.ts) declares: `AgentConfig` holds
 * inline `Plugin` objects and `CommandContext` holds the `PluginHost`, while both of those reach, through
 * the kinds and hook tables, back down to the config and the definitions. contract.ts fills this
 * interface by declaration merging (through the public entry, as plugins fill `ToolInputs`), so
 * config-schema.ts and types.ts name the types without importing the module that imports them (no
 * import cycle, types included; issue 21).
 */
export interface ContractSlots {}
