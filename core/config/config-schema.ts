/**
 * The one schema for core's part of the agent config. Other top-level keys belong to plugins, which
 * declare them (`configSections`, e.g. `mcpServers`) with schemas of their own; a key nobody owns is
 * an error naming the file (a typo should not be silently ignored).
 */
import { z } from "zod";
import { ruleProblem } from "../../kit/text/rule-syntax.js";
import type { ContractSlots } from "../contract-slots.js";

/** An inline plugin object: `Plugin`, which refers back to this config (contract-slots.ts). */
type Plugin = ContractSlots["plugin"];

export const RiskSchema = z.enum(["read", "write", "execute", "network"]);
export const PermissionModeSchema = z.enum(["default", "plan", "acceptEdits", "bypass"]);

/** `name`, `name(pattern)`; name may contain `*` globs, e.g. `mcp__github__*`, `run_command(npm test:*)`. */
export const PermissionRuleSchema = z.string().superRefine((rule, ctx) => {
  const problem = ruleProblem(rule);
  if (problem) ctx.addIssue({ code: "custom", message: `invalid rule ${JSON.stringify(rule)}: ${problem} (rules look like "read_file", "mcp__github__*" or "run_command(npm test:*)")` });
});

export const PermissionsSchema = z.strictObject({
  mode: PermissionModeSchema.optional(),
  /**
   * How a plugin's request to allow more for the session (a skill's allowed-tools) is answered: `ask` the
   * user (the default; with no terminal, refused), `allow` (an explicit opt-in, for headless runs), `deny`.
   */
  grants: z.enum(["ask", "allow", "deny"]).optional(),
  /** true: bypass mode is refused (at start and when switched to); Claude Code's `disableBypassPermissionsMode: "disable"`. */
  disableBypass: z.boolean().optional(),
  allow: z.array(PermissionRuleSchema).optional(),
  ask: z.array(PermissionRuleSchema).optional(),
  deny: z.array(PermissionRuleSchema).optional(),
});

const PositiveInt = z.number().int().positive();

export const ToolOverrideSchema = z.strictObject({
  timeoutMs: PositiveInt.optional(),
  maxOutputBytes: PositiveInt.optional(),
  risk: RiskSchema.optional(),
});

export const ToolsConfigSchema = z.strictObject({
  /** Default per-call timeout (ms). */
  timeoutMs: PositiveInt.optional(),
  /** Default output cap (bytes). */
  maxOutputBytes: PositiveInt.optional(),
  /** Per-tool overrides; keys may be globs (`mcp__github__*`). */
  overrides: z.record(z.string(), ToolOverrideSchema).optional(),
  /**
   * How long a run's first model request waits for tool sources (MCP servers) without cached tools
   * (ms, default 3000); those still starting join a later request, and the model is told.
   */
  loadWaitMs: z.number().int().nonnegative().optional(),
});

function isPluginObject(v: unknown): v is Plugin {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { name?: unknown }).name === "string";
}

export const PluginEntrySchema = z.union(
  [
    z.string().min(1),
    z.tuple([z.string().min(1), z.record(z.string(), z.unknown())]),
    z.custom<Plugin>(isPluginObject, 'expected an inline plugin object with a "name"'),
  ],
  { error: 'expected a plugin: an npm name ("agent-plugin-x" or "x"), a path ("./plugin.ts"), a [name, { options }] pair, or an inline object with a "name"' },
);

const PluginTimeoutsSchema = z.strictObject({
  /** Per-call hooks (`beforeModelRequest`, `beforeToolCall`, `afterToolCall`); default 30 000. */
  callMs: PositiveInt.optional(),
  /** `config`, `setup` and the register hooks; default 120 000. */
  startupMs: PositiveInt.optional(),
  /** `shutdown`; default 5 000. */
  shutdownMs: PositiveInt.optional(),
});

export const SessionsConfigSchema = z.strictObject({
  /** false: conversations are not saved (nothing to continue or resume). */
  enabled: z.boolean().optional(),
  /** Sessions last written more than this many days ago are deleted when a new one starts (0: never); default 30. */
  maxAgeDays: z.number().int().nonnegative().optional(),
  /** At most this many sessions are kept per project, the newest (0: no limit); default 100. */
  maxCount: z.number().int().nonnegative().optional(),
});

export const CompactionConfigSchema = z.strictObject({
  /** false: never compact on its own (a context-length error still compacts once); default true. */
  auto: z.boolean().optional(),
  /** Compact when a request is estimated above this share of the context window; default 0.8. */
  threshold: z.number().min(0.1).max(0.95).optional(),
  /** Tokens of recent turns kept verbatim; default 30% of the window. */
  keepRecentTokens: PositiveInt.optional(),
});

/** A host name for `sandbox.network`: `registry.npmjs.org`, or `*.github.com` for every subdomain. */
const SandboxHostSchema = z
  .string()
  .regex(/^(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/, 'expected a host name such as "registry.npmjs.org" or "*.github.com" (no scheme, port or path)');

export const SandboxConfigSchema = z.strictObject({
  /** false: commands run with rules only, outside any OS sandbox; default true. */
  enabled: z.boolean().optional(),
  /** true: refuse to run commands when no sandbox works here (instead of running them unsandboxed); default false. */
  required: z.boolean().optional(),
  /** More folders commands may write (`~` is the home folder; relative paths from the project root). */
  allowWrite: z.array(z.string().min(1)).optional(),
  /** More paths commands may not read (besides the credential folders, always hidden). */
  denyRead: z.array(z.string().min(1)).optional(),
  /** `none` (default): no network; `all`: unrestricted; a list of hosts: only those, through a local proxy. */
  network: z.union([z.enum(["none", "all"]), z.array(SandboxHostSchema)], { error: 'expected "none", "all" or a list of host names (["registry.npmjs.org", "*.github.com"])' }).optional(),
  /** true: command hooks run in the sandbox too; default false. */
  hooks: z.boolean().optional(),
});

/** Core's keys; a file may hold plugin sections beside them (checked once the plugins are known). */
export const CORE_CONFIG_SHAPE = {
  /** `provider:model`, e.g. `openai:gpt-5.4` or `anthropic:claude-sonnet-5-5`, or a model alias (`sonnet`). */
  model: z.string().regex(/^(?:[^:\s]+:\S+|[A-Za-z0-9][A-Za-z0-9._-]*)$/, 'expected "provider:model" (e.g. "anthropic:claude-sonnet-5-5") or a model alias (e.g. "sonnet")').optional(),
  /** Short names for models: `{ "fast": "openai:gpt-5.1-mini" }`; they add to (or replace) the built-in `sonnet`, `opus`, `haiku`, `gpt`, `gpt-mini`. */
  modelAliases: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "an alias is a name without a colon (letters, digits, . _ -)"), z.string().regex(/^[^:\s]+:\S+$/, 'expected "provider:model"'))
    .optional(),
  systemPrompt: z.string().optional(),
  maxTurns: PositiveInt.optional(),
  /** The model's context window in tokens, for a model the built-in table does not know (a local model). */
  contextWindow: z.number().int().min(1000).optional(),
  compaction: CompactionConfigSchema.optional(),
  sessions: SessionsConfigSchema.optional(),
  plugins: z.array(PluginEntrySchema).optional(),
  /** Plugins not to load (built-ins too), by name or by their config entry. A disabled plugin is not even imported. */
  disabledPlugins: z.array(z.string().min(1)).optional(),
  /** How long a plugin's hook handler may take before it is reported and skipped. */
  pluginTimeouts: PluginTimeoutsSchema.optional(),
  permissions: PermissionsSchema.optional(),
  tools: ToolsConfigSchema.optional(),
  workspace: z.strictObject({ roots: z.array(z.string().min(1)).optional() }).optional(),
  audit: z
    .strictObject({
      enabled: z.boolean().optional(),
      path: z.string().min(1).optional(),
      /** A log that cannot be written (a full disk): `fail` (default) refuses tool calls until it can; `warn` runs them unrecorded. */
      onError: z.enum(["fail", "warn"]).optional(),
      /** Past this size the log is rotated (`audit.jsonl.1`, …) when a host opens it; default 20 MiB. */
      maxBytes: z.number().int().min(4096).optional(),
      /** Rotated logs kept; default 5. */
      keep: z.number().int().min(0).max(100).optional(),
    })
    .optional(),
  /** Provider settings by provider name, e.g. `{ openai: { baseURL, apiKey } }`; checked by each provider plugin. */
  providers: z.record(z.string(), z.looseObject({})).optional(),
  /** Variables added to the environment of the processes tools and command hooks start (not the host's own). */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name (letters, digits, _)"), z.string()).optional(),
  /** The OS sandbox run_command (and, opted in, command hooks) run in: see sandbox/ (the implementation the composition root passes). */
  sandbox: SandboxConfigSchema.optional(),
  /** Other tools' files read as config (config sources, by name): `claude: false` ignores Claude Code's settings files. */
  compat: z.record(z.string(), z.boolean()).optional(),
};

/** Core keys checked strictly; other keys pass through to the plugin sections' own schemas. */
export const AgentConfigSchema = z.looseObject(CORE_CONFIG_SHAPE);
export const CORE_CONFIG_KEYS: readonly string[] = Object.keys(CORE_CONFIG_SHAPE);

/**
 * Config keys plugins add, for `defineConfig` types. A plugin package augments it:
 * `declare module "agent-host" { interface PluginConfigSections { mySection?: MySettings } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PluginConfigSections {}

export type CoreConfig = z.infer<z.ZodObject<typeof CORE_CONFIG_SHAPE>>;
export type AgentConfig = CoreConfig & PluginConfigSections & { [section: string]: unknown };
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;
export type PluginEntry = z.infer<typeof PluginEntrySchema>;

