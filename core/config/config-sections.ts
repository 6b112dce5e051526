/**
 * Config keys that belong to plugins (`configSections`), and what a plugin's `config` hook may change.
 * Sections are checked file by file with the owner's zod schema, so an error names the file and the key
 * path exactly as core's own keys do; then merged in file order with the section's strategy.
 */
import { type AgentConfig } from "./config-schema.js";
import { mergeConfig, type RawSection } from "./config.js";
import { isPlainObject } from "../../kit/text/plain-object.js";
import { mergeSectionValue } from "../../kit/config/merge.js";
import { zodIssues } from "../../kit/schema.js";
import { ConfigError } from "../../kit/errors.js";
import type { PluginConfigSection } from "../plugin-types.js";
import { closestNames } from "../../kit/text/suggest.js";

export interface SectionOwner {
  plugin: string;
  section: PluginConfigSection;
}

export interface SectionResult {
  /** The merged, validated sections. */
  values: Record<string, unknown>;
  /** Keys nobody owns, when some plugin that might own them did not load (reported, not fatal). */
  orphans: { file: string; key: string; optional?: boolean }[];
}

/**
 * Validate every raw section with its owner's schema and merge them. A key with no owner is a config
 * error (with the closest known key), unless `lenient` (a plugin was disabled or failed to load: the key
 * may be its) in which case it is returned as an orphan to report.
 */
export function checkSections(raw: RawSection[], owners: Map<string, SectionOwner>, knownKeys: readonly string[], lenient: boolean): SectionResult {
  const values: Record<string, unknown> = {};
  const orphans: SectionResult["orphans"] = [];
  for (const { file, key, value, optional } of raw) {
    const owner = owners.get(key);
    if (!owner) {
      if (lenient || optional) {
        orphans.push({ file, key, ...(optional ? { optional } : {}) });
        continue;
      }
      const near = closestNames(key, [...knownKeys, ...owners.keys()]);
      throw new ConfigError(file, [{ path: key, message: `unknown key${near.length ? `; did you mean "${near[0]}"?` : ""} (no loaded plugin uses it)` }]);
    }
    const parsed = owner.section.schema.safeParse(value);
    if (!parsed.success) throw new ConfigError(file, zodIssues(parsed.error, key));
    values[key] = key in values ? mergeSectionValue(values[key], parsed.data, owner.section.merge ?? "deep", mergeConfig) : parsed.data;
  }
  return { values, orphans };
}

/**
 * Keys a `config` hook may not loosen: only the user's own files decide what is allowed, where tools
 * may reach, what is recorded, which plugins run and the environment commands run with. A hook may
 * still add `ask` and `deny` rules.
 */
const GUARDED = ["permissions", "workspace", "audit", "plugins", "disabledPlugins", "pluginTimeouts", "env", "compat"] as const;

/**
 * Merge what a plugin's `config` hook returned over the config, keeping the guarded keys as they were
 * (except added ask/deny rules and tool risks raised, never lowered), and the plugin sections declared
 * `userOnly` (command hooks are policies: no plugin may drop or add them). Returns the new config and
 * the keys the plugin tried to change and could not.
 */
export function mergeHookConfig(current: AgentConfig, returned: Record<string, unknown>, userOnly: readonly string[] = []): { config: AgentConfig; refused: string[] } {
  const refused: string[] = [];
  const patch: Record<string, unknown> = { ...returned };
  for (const key of [...GUARDED, ...userOnly]) {
    if (!(key in patch)) continue;
    if (key === "permissions" && isPlainObject(patch.permissions)) {
      const { ask, deny, ...rest } = patch.permissions as Record<string, unknown>;
      for (const k of Object.keys(rest)) if (JSON.stringify(rest[k]) !== JSON.stringify((current.permissions as Record<string, unknown> | undefined)?.[k])) refused.push(`permissions.${k}`);
      patch.permissions = { ...(ask !== undefined ? { ask } : {}), ...(deny !== undefined ? { deny } : {}) };
      continue;
    }
    if (JSON.stringify(patch[key]) !== JSON.stringify(current[key])) refused.push(key);
    delete patch[key];
  }
  const overrides = (patch.tools as { overrides?: Record<string, { risk?: string }> } | undefined)?.overrides;
  if (overrides) {
    for (const [name, o] of Object.entries(overrides)) {
      const before = current.tools?.overrides?.[name]?.risk;
      if (o && o.risk !== undefined && o.risk !== before && !raisesRisk(before, o.risk)) {
        refused.push(`tools.overrides.${name}.risk`);
        const { risk: _dropped, ...kept } = o;
        overrides[name] = kept;
      }
    }
  }
  return { config: mergeConfig(current, patch as AgentConfig), refused };
}

const RISK_ORDER = ["read", "write", "network", "execute"];

/** Setting a risk where there was none is allowed only to the most careful one. */
function raisesRisk(before: string | undefined, after: string): boolean {
  if (before === undefined) return after === "execute";
  return RISK_ORDER.indexOf(after) > RISK_ORDER.indexOf(before);
}
