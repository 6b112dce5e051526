/**
 * The one schema for agent config. Unknown top-level keys are errors (a typo should not be
 * silently ignored); plugin-specific settings go in plugin options or `providers`/`mcpServers`.
 */
import { z } from "zod";
import type { Plugin } from "./types.js";

export const RiskSchema = z.enum(["read", "write", "execute", "network"]);
export const PermissionModeSchema = z.enum(["default", "plan", "acceptEdits", "bypass"]);

/** `name`, `name(pattern)`; name may contain `*` globs, e.g. `mcp__github__*`, `run_command(npm test:*)`. */
export const PermissionRuleSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_*?-]+(\(.*\))?$/, 'expected a rule like "read_file", "mcp__github__*" or "run_command(npm test:*)"');

export const PermissionsSchema = z.strictObject({
  mode: PermissionModeSchema.optional(),
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
});

const isPluginObject = (v: unknown): v is Plugin =>
  typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as { name?: unknown }).name === "string";

export const PluginEntrySchema = z.union([
  z.string().min(1),
  z.tuple([z.string().min(1), z.record(z.string(), z.unknown())]),
  z.custom<Plugin>(isPluginObject, 'expected an inline plugin object with a "name"'),
]);

/** An MCP server entry, in the shape `.mcp.json`, Claude Desktop and Cursor use. Checked in detail by the MCP plugin. */
export const McpServerEntrySchema = z.looseObject({});

export const AgentConfigSchema = z.strictObject({
  /** `provider:model`, e.g. `openai:gpt-4.1` or `anthropic:claude-sonnet-4-5`. */
  model: z.string().regex(/^[^:\s]+:\S+$/, 'expected "provider:model", e.g. "openai:gpt-4.1"').optional(),
  systemPrompt: z.string().optional(),
  maxTurns: PositiveInt.optional(),
  plugins: z.array(PluginEntrySchema).optional(),
  permissions: PermissionsSchema.optional(),
  tools: ToolsConfigSchema.optional(),
  workspace: z.strictObject({ roots: z.array(z.string().min(1)).optional() }).optional(),
  audit: z
    .strictObject({
      enabled: z.boolean().optional(),
      path: z.string().min(1).optional(),
    })
    .optional(),
  /** Provider settings by provider name, e.g. `{ openai: { baseURL, apiKey } }`; checked by each provider plugin. */
  providers: z.record(z.string(), z.looseObject({})).optional(),
  mcpServers: z.record(z.string(), McpServerEntrySchema).optional(),
});

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;
export type PluginEntry = z.infer<typeof PluginEntrySchema>;
