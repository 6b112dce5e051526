/**
 * The composition root: which built-in plugins the `agent` command starts with. Core knows none of
 * them; each is loaded lazily and is written only against the public API.
 */
import type { PluginPackageFormat } from "../core/index.js";
import type { BuiltinPlugin, ConfigSource } from "../core/embed.js";
import { pluginSubcommands } from "../plugins/claude-plugins/cli.js";
import { claudePluginFormat } from "../plugins/claude-plugins/format.js";
import { claudeSettingsSource } from "../plugins/claude-settings/index.js";
import { ANTHROPIC_MODEL_ALIASES } from "../plugins/anthropic/models.js";
import { OPENAI_MODEL_ALIASES } from "../plugins/openai/models.js";

/** The OS sandbox commands run in (bwrap, sandbox-exec): `createHost({ sandbox: createCommandSandbox })`. */
export { createCommandSandbox } from "../sandbox/index.js";

export const builtinPlugins: BuiltinPlugin[] = [
  { name: "tools", load: async () => (await import("../plugins/tools/index.js")).default },
  { name: "mcp", load: async () => (await import("../plugins/mcp/index.js")).default },
  { name: "openai", load: async () => (await import("../plugins/openai/index.js")).default },
  { name: "anthropic", load: async () => (await import("../plugins/anthropic/index.js")).default },
  { name: "sessions", load: async () => (await import("../plugins/sessions/index.js")).default },
  { name: "compaction", load: async () => (await import("../plugins/compaction/index.js")).default },
  { name: "instructions", load: async () => (await import("../plugins/instructions/index.js")).default },
  { name: "commands", load: async () => (await import("../plugins/commands/index.js")).default },
  { name: "markdown-commands", load: async () => (await import("../plugins/markdown-commands/index.js")).default },
  { name: "skills", load: async () => (await import("../plugins/skills/index.js")).default },
  { name: "tool-search", load: async () => (await import("../plugins/tool-search/index.js")).default },
  { name: "hooks", load: async () => (await import("../plugins/hooks/index.js")).default },
  { name: "telemetry", load: async () => (await import("../plugins/telemetry/index.js")).default },
  { name: "acp", load: async () => (await import("../plugins/acp/index.js")).default },
  { name: "mcp-serve", load: async () => (await import("../plugins/mcp-serve/index.js")).default },
  { name: "agents", load: async () => (await import("../plugins/agents/index.js")).default },
];

/** Other tools' settings read as config, before any plugin's setup: Claude Code's settings files (`createHost({ configSources })`). */
export const configSources: ConfigSource[] = [claudeSettingsSource];
export { claudeSettingsSource };

/** The session store (the `sessions` plugin's public face): `agent sessions`, and embedders (`agent-host/builtins`). */
export {
  listSessions,
  findSession,
  readSession,
  sessionsDir,
  sessionFile,
  pruneSessions,
  SESSIONS_DIR,
  DEFAULT_SESSION_MAX_AGE_DAYS,
  DEFAULT_SESSION_MAX_COUNT,
  type SessionSummary,
  type SessionMeta,
  type SessionRecord,
  type LoadedSession,
} from "../plugins/sessions/index.js";

/** The context window lookup and the compaction defaults (the `compaction` plugin's context management): embedders (`agent-host/builtins`). */
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW, DEFAULT_COMPACT_THRESHOLD } from "../plugins/compaction/context-window.js";

/** Each MCP server of a host and its state (the `mcp` plugin's public face): `agent mcp list`, embedders; a listing with a server is not cached. */
export { getMcpStatus, type McpServerStatus } from "../plugins/mcp/status.js";

/** Plugin packages that are not npm modules: Claude Code plugin folders and Agent Plugins 1.0 packages. */
export const packageFormats: PluginPackageFormat[] = [claudePluginFormat()];

/** `agent plugin` subcommands for them: marketplace, install, uninstall, enable, disable, list, update. */
export const claudePluginSubcommands = pluginSubcommands;

/**
 * The aliases the built-in providers declare, as `provider:model` (`sonnet` → `anthropic:claude-sonnet-5-5`):
 * what they mean in a host with those plugins (each provider's `modelAliases`; config `modelAliases` goes over them).
 */
export const BUILTIN_MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(Object.entries(ANTHROPIC_MODEL_ALIASES).map(([a, m]) => [a, `anthropic:${m}`])),
  ...Object.fromEntries(Object.entries(OPENAI_MODEL_ALIASES).map(([a, m]) => [a, `openai:${m}`])),
});
