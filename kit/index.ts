/**
 * `agent-host/kit`: helpers the built-in plugins share, offered to plugin authors for convenience
 * (atomic and locked file writes, JSON/YAML parsing with clear errors, redaction, "did you mean", the
 * shell line judge, SKILL.md parsing, reading the project instruction files). Same semver as
 * `agent-host`; nothing here knows the host: this folder imports nothing from the kernel (core/), so
 * using it never changes what a plugin may do.
 * Re-exports only.
 */
export { AgentError, ConfigError, ExitCode, errorMessage, type ErrorCode } from "./errors.js";
export { candidates as pluginPackageNames, findPluginPackage } from "./plugin-resolve.js";
export { hostVersion } from "./version.js";
export { agentHostFor, type AgentHostCopy } from "./self-package.js";
export { capOutput } from "./text/output.js";
export { redactString, summarize, isSecretKey, addSecret, REDACTED } from "./text/redact.js";
export { closestNames, editDistance } from "./text/suggest.js";
export { tooDeep, MAX_CONFIG_DEPTH } from "./text/depth.js";
export { parseJson, parseJsonConfig, parseJsonLines, JsonSyntaxError } from "./text/json.js";
export { parseYaml, parseFrontmatterYaml, MAX_YAML_NODES } from "./text/yaml.js";
export { oneLine } from "./text/one-line.js";
export { picomatch, wildcardMatcher as patternMatcher } from "./text/glob.js";
export { ruleProblem } from "./text/rule-syntax.js";
export { writeFileAtomic, openPrivateAppend, SECRET_FILE_MODE, type SharedFileMode } from "./fs/atomic-write.js";
export { removeDeadWritersTemps, pidMatcher } from "./fs/stale-temps.js";
export { updateFileLocked, type FileChange, type LockedUpdate, type LockedUpdateOptions } from "./fs/locked-update.js";
export { withFileLock, withFileLockAsync, lockFileOf, type FileLockOptions } from "./fs/file-lock.js";
export { shellCommands as shellSubjects, type ScriptFiles, type ShellSubjectOptions } from "./shell/index.js";
export { denySubjects, opaqueReason } from "./shell/subject-marks.js";
/** Hook classes for plugins that offer hooks of their own (`definePluginHooks`). */
export { SyncHook, SyncWaterfallHook, AsyncSeriesHook, AsyncSeriesBailHook, AsyncSeriesWaterfallHook, AsyncParallelHook } from "tapable";
export { modelHttpError, modelConnectionError, modelRequestError, type ModelEndpoint, type ModelHttpFailure, type ModelConnectionFailure } from "./provider/errors.js";
export { modelErrorCodeForStatus, parseRetryAfter, networkErrorCode } from "./provider/model-error.js";
export { terminate, type ProcessTracker, type TrackableProcess } from "./processes.js";
export { auditLogFiles, readAuditTail, streamAuditRecords, type AuditTail } from "./audit-files.js";
export { appendAuditFile, AuditFile, type AuditFileBatch, type AuditFileOptions, type AuditFileRecord } from "./audit-file.js";
export { jsonSchemaValidator, schemaDialect, type JsonSchema, type SchemaDialect, type LazyValidator, type Validator, type Validation } from "./schema.js";
export { parseSkillFile, skillBody, type SkillFile, type ParsedSkill } from "./skill-file.js";
export { splitToolList, toolRules, type NamedTool } from "./tool-lists.js";
/** Claude Code's user folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`): its settings, instructions, agents. */
export { claudeUserDir } from "./fs/user-config-dir.js";
/** The user's cache and state folders (XDG), and a project's own folder in them: where what `.agent/` would hold goes when a project has none. */
export { userCacheDir, userStateDir, projectFolderName } from "./fs/user-folders.js";
export { loadInstructions, INSTRUCTION_NAMES, type Instructions, type InstructionFile, type InstructionSources, type InstructionWorkspace } from "./instructions.js";
