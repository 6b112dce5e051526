/**
 * `agent-host/embed`: for a program that embeds the host (the `agent` CLI, an editor bridge): preparing a
 * host in two steps, folder trust, project instructions and model tables, config files, config sources
 * (another tool's settings read as config) and local settings, the sandbox's types (its implementation:
 * `agent-host/builtins`), rule parsing and the audit sink's types. Plugins rarely need it; the
 * contract is `agent-host`. Re-exports only.
 */
export { prepareHost } from "./host/host.js";
export { pluginPreparedView, pluginView } from "./host/host-view.js";
export type { AgentSession, RunOptions, RunResult, BuiltinPlugin, CreateHostOptions, OpenHostOptions, PreparedHost } from "./host-types.js";
export type { CliOpenHostOptions, CliSessionHostOptions, CliOption, CliValues } from "./cli-types.js";
export type { GrantRequest, InputRequest } from "./types.js";
export type { PluginStatus } from "./plugin-types.js";
export type { Tappable, SyncTappable, EventTapOptions } from "./hooks/tap-types.js";
/** What a `systemPrompt` handler is handed and may return (the contract entry is at its 120 names). */
export type { SystemPromptInfo, SystemPromptSection } from "./hooks/hook-types.js";
export { DEFAULT_PLUGIN_TIMEOUTS, trustPreparedFolder } from "./plugins/prepare.js";
export type { TrustItem, TrustItemInput, TrustReport, TrustState, FolderTrustView, ConfigTrust } from "./config/trust.js";
export { untrustFolder, trustedFolders, trustDecision, TRUST_FILE } from "../kit/fs/trust-store.js";
export { realFolder } from "../kit/fs/real-path.js";
export type { ConfigOrigin, ConfigSource, ConfigSourceFile } from "./config/config-source.js";
export { AgentConfigSchema, type CoreConfig, type PermissionRule, type ToolOverride, type PluginEntry } from "./config/config-schema.js";
export { locateProjectConfig, CONFIG_SEARCH_PLACES } from "../kit/fs/config-file.js";
export { defaultUserConfigDir } from "../kit/fs/user-config-dir.js";
export { LOCAL_SETTINGS_FILE, localSettingsPath, readLocalSettings, updateLocalSettings, addLocalAllowRules } from "../kit/fs/local-settings.js";
export { ensureAgentIgnores } from "../kit/fs/agent-ignores.js";
export { resolveModel, systemPrompt, DEFAULT_MAX_TURNS } from "./loop/run-setup.js";
/** What the `transcript` and `sessionLoad` hooks carry (the `sessions` plugin writes and reads the transcripts). */
export type { ResumeResult, TranscriptRecord, TranscriptBatch, TranscriptAnswer, SessionLoadRequest, SessionLoadAnswer } from "./hooks/hook-types.js";
/** A message's size in characters, as `ContextPoint.chars` counts it (the `compaction` plugin splits by it). */
export { messageChars } from "./loop/request-size.js";
/** What the `compact` hook carries, and the context points (`fitContext`, `modelError`, `compactAsked`) the `compaction` plugin manages. */
export type { CompactOutcome, CompactionRequest, CompactionResult, CompactionAsk, ContextPoint, ModelTurnPoint, ModelErrorInfo, ModelErrorDecision, CompactAskedPoint } from "./hooks/hook-types.js";
export { expandModelAlias, modelAliases } from "../kit/provider/model-aliases.js";
export type { SandboxStatus, SandboxSpawnSpec } from "./types.js";
/** Where audit records go (`createHost({ auditSink })`; the default, the JSONL file, is `appendAuditFile` of `agent-host/kit`). */
export type { AuditSink, AuditBatch, AuditRecord } from "./gate/audit.js";
export {
  parseRule as parsePermissionRule,
  namesTool as ruleNamesTool,
  type ParsedRule,
  type RuleTarget,
} from "../kit/rules/parse.js";
export { judgedPaths, type JudgedPaths } from "./gate/judged-paths.js";
