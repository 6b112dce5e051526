/** The public API of agent-host. Re-exports only. */
export { createHost, prepareHost } from "./host/host.js";
export { pluginPreparedView, pluginView } from "./host/host-view.js";
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
/** Hook classes for plugins that offer hooks of their own (`definePluginHooks`). */
export { SyncHook, SyncWaterfallHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook, AsyncParallelHook } from "tapable";
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
  GrantRequest,
  PermissionAsker,
  InputRequest,
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
  SandboxStatus,
  SandboxSpawnSpec,
  SandboxedSpawn,
} from "./types.js";
export { PERMISSION_MODES, RISKS } from "./types.js";
export { changesAgentKey, mentionsProtectedName } from "./gate/protected-paths.js";
export type { ToolSource, ToolLoadOptions, ToolLoadResult } from "./registry/tool-sources.js";
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
  PluginStatus,
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
export type { ConfigOrigin } from "./config/claude-settings.js";
export { DEFAULT_PLUGIN_TIMEOUTS, trustPreparedFolder } from "./plugins/prepare.js";
export { untrustFolder, trustedFolders, trustDecision, realFolder, TRUST_FILE, type TrustItem, type TrustItemInput, type TrustReport, type TrustState, type FolderTrustView, type ConfigTrust } from "./config/trust.js";
export type {
  Host,
  PluginHost,
  AgentSession,
  RunOptions,
  DetachedRunOptions,
  DetachedRunResult,
  RunResult,
  BuiltinPlugin,
  CreateHostOptions,
  PluginPackageFormat,
  OpenHostOptions,
  PreparedHost,
} from "./host-types.js";
export type { CliCommand, CliOption, CliValues, CliContext, CliOpenHostOptions, CliSessionHost, CliSessionHostOptions } from "./cli-types.js";
export type { HookTable, HookName } from "./hooks/hooks.js";
export type { Tappable, SyncTappable, TapOptions, EventTapOptions } from "./hooks/tap-types.js";
export type { AgentEvent, AgentEventType, StopReason } from "./hooks/events.js";
export { parseModelRef, parseProviderConfig, ModelError, modelErrorCodeForStatus, parseRetryAfter, networkErrorCode } from "./loop/model.js";
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
} from "./loop/model.js";
export { modelHttpError, modelConnectionError, modelRequestError, type ModelEndpoint, type ModelHttpFailure, type ModelConnectionFailure } from "./loop/provider-errors.js";
export { resolveModel, systemPrompt, DEFAULT_MAX_TURNS } from "./loop/run-setup.js";
export { listSessions, findSession, readSession, sessionsDir, sessionFile, pruneSessions, SESSIONS_DIR, DEFAULT_SESSION_MAX_AGE_DAYS, DEFAULT_SESSION_MAX_COUNT } from "./session/session-store.js";
export type { SessionSummary, SessionMeta, SessionRecord, LoadedSession } from "./session/session-store.js";
export type { ResumeResult } from "./session/session-recorder.js";
export type { CompactOutcome } from "./session/compaction.js";
/** @internal How lower contract modules name `Plugin` and `PluginHost` without an import cycle (contract-slots.ts); not for plugins. */
export type { ContractSlots } from "./contract-slots.js";
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW, DEFAULT_COMPACT_THRESHOLD } from "./session/context-window.js";
export { loadInstructions, INSTRUCTION_NAMES, type Instructions, type InstructionFile } from "./session/instructions.js";
export { BUILTIN_MODEL_ALIASES, expandModelAlias, modelAliases } from "./session/model-aliases.js";
export {
  AgentConfigSchema,
  type AgentConfig,
  type CoreConfig,
  type PluginConfigSections,
  type PermissionRule,
  type ToolOverride,
  type PluginEntry,
} from "./config/config-schema.js";
export { locateProjectConfig, CONFIG_SEARCH_PLACES, defaultUserConfigDir } from "./config/config.js";
export { LOCAL_SETTINGS_FILE, localSettingsPath, readLocalSettings, updateLocalSettings, addLocalAllowRules } from "./config/local-settings.js";
export { AgentError, ConfigError, ExitCode, errorMessage, type ErrorCode } from "../kit/errors.js";
export { terminate } from "./host/processes.js";
export { createCommandSandbox } from "./sandbox/command-sandbox.js";
export { auditLogFiles, readAuditTail, streamAuditRecords, type AuditTail } from "./gate/audit-files.js";
export {
  wildcardMatcher as patternMatcher,
  parseRule as parsePermissionRule,
  namesTool as ruleNamesTool,
  type ParsedRule,
  type RuleTarget,
} from "./gate/permissions.js";
export { judgedPaths, type JudgedPaths } from "./gate/judged-paths.js";
