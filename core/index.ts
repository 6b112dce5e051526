/** The public API of agent-host. Re-exports only. */
export { createHost, prepareHost } from "./host.js";
export { pluginPreparedView, pluginView } from "./host-view.js";
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
export { changesAgentKey, mentionsProtectedName } from "./protected-paths.js";
export type { ToolSource, ToolLoadOptions, ToolLoadResult, ToolUnavailable } from "./tool-sources.js";
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
} from "./hook-types.js";
export type { ConfigOrigin } from "./claude-settings.js";
export { DEFAULT_PLUGIN_TIMEOUTS, trustPreparedFolder } from "./prepare.js";
export { untrustFolder, trustedFolders, trustDecision, realFolder, TRUST_FILE, type TrustItem, type TrustItemInput, type TrustReport, type TrustState, type FolderTrustView, type ConfigTrust } from "./trust.js";
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
export type { HookTable, HookName } from "./hooks.js";
export type { Tappable, SyncTappable, TapOptions, EventTapOptions } from "./tap-types.js";
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
export { modelHttpError, modelConnectionError, modelRequestError, type ModelEndpoint, type ModelHttpFailure, type ModelConnectionFailure } from "./provider-errors.js";
export { resolveModel, systemPrompt, DEFAULT_MAX_TURNS } from "./run-setup.js";
export { listSessions, findSession, readSession, sessionsDir, sessionFile, pruneSessions, SESSIONS_DIR, DEFAULT_SESSION_MAX_AGE_DAYS, DEFAULT_SESSION_MAX_COUNT } from "./session-store.js";
export type { SessionSummary, SessionMeta, SessionRecord, LoadedSession } from "./session-store.js";
export type { ResumeResult } from "./session-recorder.js";
export type { CompactOutcome } from "./compaction.js";
/** @internal How lower contract modules name `Plugin` and `PluginHost` without an import cycle (contract-slots.ts); not for plugins. */
export type { ContractSlots } from "./contract-slots.js";
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW, DEFAULT_COMPACT_THRESHOLD } from "./context-window.js";
export { loadInstructions, INSTRUCTION_NAMES, type Instructions, type InstructionFile } from "./instructions.js";
export { BUILTIN_MODEL_ALIASES, expandModelAlias, modelAliases } from "./model-aliases.js";
export {
  AgentConfigSchema,
  type AgentConfig,
  type CoreConfig,
  type PluginConfigSections,
  type PermissionRule,
  type ToolOverride,
  type PluginEntry,
} from "./config-schema.js";
export { locateProjectConfig, CONFIG_SEARCH_PLACES, defaultUserConfigDir } from "./config.js";
export { LOCAL_SETTINGS_FILE, localSettingsPath, readLocalSettings, updateLocalSettings, addLocalAllowRules } from "./local-settings.js";
export { candidates as pluginPackageNames, findPluginPackage } from "./plugin-resolve.js";
export { AgentError, ConfigError, ExitCode, errorMessage, type ErrorCode } from "./errors.js";
export { terminate } from "./processes.js";
export { createCommandSandbox } from "./sandbox/command-sandbox.js";
export type { ScriptFiles, ShellSubjectOptions } from "./shell.js";
export { denySubjects, opaqueReason } from "./subject-marks.js";
export { auditLogFiles, readAuditTail, streamAuditRecords, type AuditTail } from "./audit-files.js";
export {
  shellSubjects,
  wildcardMatcher as patternMatcher,
  parseRule as parsePermissionRule,
  namesTool as ruleNamesTool,
  type ParsedRule,
  type RuleTarget,
} from "./permissions.js";
export { ruleProblem } from "./config-schema.js";
export { capOutput } from "./output.js";
export { jsonSchemaValidator, schemaDialect, type SchemaDialect, type LazyValidator, type Validator, type Validation } from "./schema.js";
export { redactString, summarize, isSecretKey, addSecret, REDACTED } from "./redact.js";
export { closestNames, editDistance } from "./suggest.js";
export { hostVersion } from "./version.js";
export { agentHostFor, type AgentHostCopy } from "./self-package.js";
export { tooDeep, MAX_CONFIG_DEPTH } from "./depth.js";
export { parseJson, parseJsonConfig, parseJsonLines, JsonSyntaxError } from "./json.js";
export { writeFileAtomic, openPrivateAppend, SECRET_FILE_MODE, type SharedFileMode } from "./atomic-write.js";
export { removeDeadWritersTemps, pidMatcher } from "./stale-temps.js";
export { updateFileLocked, type FileChange, type LockedUpdate, type LockedUpdateOptions } from "./locked-update.js";
export { withFileLock, withFileLockAsync, lockFileOf, type FileLockOptions } from "./file-lock.js";
export { oneLine } from "./one-line.js";
export { picomatch } from "./glob.js";
export { judgedPaths, type JudgedPaths } from "./judged-paths.js";
export { parseSkillFile, type SkillFile, type ParsedSkill } from "./skill-file.js";
export { parseYaml, parseFrontmatterYaml, MAX_YAML_NODES } from "./yaml.js";
export { splitToolList, toolRules } from "./tool-names.js";
