/** The public API of agent-host. Re-exports only. */
export { createHost, type CreateHostOptions, type BuiltinPlugin } from "./host.js";
export { definePlugin, defineTool, defineCommand, defineSkill, defineProvider, defineConfig } from "./define.js";
export { z } from "zod";
export type {
  Risk,
  PermissionMode,
  JsonSchema,
  ToolReturn,
  ToolCallContext,
  ToolDefinition,
  RegisteredTool,
  CallOutcome,
  ToolResult,
  CallOptions,
  PermissionAnswer,
  PermissionRequest,
  PermissionAsker,
  CommandDefinition,
  CommandResult,
  CommandContext,
  RegisteredCommand,
  SkillDefinition,
  RegisteredSkill,
  Workspace,
  Logger,
  ToolRegistrar,
  CommandRegistrar,
  SkillRegistrar,
  ProviderRegistrar,
  PluginContext,
  PluginHooks,
  ToolCallInfo,
  BeforeToolCallDecision,
  Plugin,
  PluginFactory,
  AuditKind,
  PluginStatus,
  HostProblem,
  Host,
  AgentSession,
  RunOptions,
  RunResult,
} from "./types.js";
export { PERMISSION_MODES } from "./types.js";
export type { AgentEvent, AgentEventType, StopReason } from "./events.js";
export { parseModelRef, parseProviderConfig, ModelError, modelErrorCodeForStatus, parseRetryAfter, networkErrorCode } from "./model.js";
export type {
  ModelProvider,
  ModelRequest,
  ModelMessage,
  ModelTool,
  ModelToolCall,
  ModelStreamEvent,
  ModelStopReason,
  ModelUsage,
  ModelErrorCode,
} from "./model.js";
export type { HookTable, HookName } from "./hooks.js";
export { AgentConfigSchema, type AgentConfig, type PermissionRule, type ToolOverride, type PluginEntry } from "./config-schema.js";
export { AgentError, ConfigError, ExitCode, type ErrorCode } from "./errors.js";
export { trackChildProcess, terminate } from "./processes.js";
export { shellSubjects } from "./permissions.js";
export { capOutput } from "./output.js";
export { redactString, summarize } from "./redact.js";
export { closestNames, editDistance } from "./suggest.js";
