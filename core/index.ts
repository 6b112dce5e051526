/**
 * `agent-host`: the plugin and host contract: what a plugin is, what it is handed, what it may register,
 * and the host it runs in. Re-exports only; each name is documented in docs/plugins.md. Also:
 * `agent-host/kit` (helpers the built-in plugins share), `agent-host/embed` (for a program that embeds
 * the host: folder trust, the session store, config files, the audit log) and `agent-host/testing`.
 */
export { createHost } from "./host/host.js";
export {
  definePlugin,
  defineTool,
  defineCommand,
  defineSkill,
  defineProvider,
  defineConfig,
  defineCliCommand,
  definePluginHooks,
  isCallTo,
  type ToolInputs,
} from "./define.js";
export { z } from "zod";
export type {
  Risk,
  PermissionMode,
  JsonSchema,
  DeepReadonly,
  ToolReturn,
  ToolCallContext,
  ToolDefinition,
  FileWrite,
  WritesContext,
  ProtectedWriteInfo,
  RegisteredTool,
  CallOutcome,
  ToolResult,
  CallOptions,
  CallAgent,
  CallAgentInfo,
  PermissionAnswer,
  SessionGrant,
  PermissionRequest,
  PermissionAsker,
  CommandDefinition,
  CommandResult,
  CommandContext,
  RegisteredCommand,
  SkillDefinition,
  RegisteredSkill,
  AgentDefinition,
  RegisteredAgent,
  Workspace,
  Logger,
  AuditKind,
  ProcessTracker,
  TrackableProcess,
  CommandSandbox,
  SandboxedSpawn,
} from "./types.js";
export { PERMISSION_MODES, RISKS } from "./types.js";
export { changesAgentKey, mentionsProtectedName } from "./gate/protected-paths.js";
export type { ToolSource, ToolLoadOptions, ToolLoadResult, ToolUnavailable } from "./registry/tool-sources.js";
export type {
  ToolRegistrar,
  CommandRegistrar,
  SkillRegistrar,
  ProviderRegistrar,
  AgentRegistrar,
  ToolCallInfo,
  BeforeToolCallDecision,
  ConfigEnv,
  PluginConfigSection,
  PluginHooks,
  Plugin,
  PluginFactory,
  PluginContext,
  PluginAuditRecord,
  HostProblem,
} from "./plugin-types.js";
export type {
  SessionStartInfo,
  SessionStartResult,
  SessionEndInfo,
  SubagentStartInfo,
  SubagentStopInfo,
  UserPromptInfo,
  UserPromptDecision,
  PermissionVerdict,
  PermissionCheck,
  PermissionVote,
  PermissionPromptInfo,
  PermissionPromptAnswer,
  StopInfo,
  StopDecision,
  CompactInfo,
  CompactDecision,
} from "./hooks/hook-types.js";
export type { Host, PluginHost, DetachedRunOptions, DetachedRunResult, PluginPackageFormat } from "./host-types.js";
export type { CliCommand, CliContext, CliSessionHost } from "./cli-types.js";
export type { HookTable, HookName } from "./hooks/hooks.js";
export type { TapOptions } from "./hooks/tap-types.js";
export type { AgentEvent, AgentEventType, StopReason } from "./hooks/events.js";
export { parseModelRef, parseProviderConfig, ModelError } from "./loop/model.js";
export type { ModelProvider, ModelRequest, ModelMessage, ModelTool, ModelToolCall, ModelStreamEvent, ModelStopReason, ModelUsage, ModelErrorCode } from "./loop/model.js";
export type { AgentConfig, PluginConfigSections } from "./config/config-schema.js";
export { AgentError, ConfigError, ExitCode, errorMessage, type ErrorCode } from "../kit/errors.js";
/** @internal How lower contract modules name `Plugin` and `PluginHost` without an import cycle (contract-slots.ts); not for plugins. */
export type { ContractSlots } from "./contract-slots.js";
