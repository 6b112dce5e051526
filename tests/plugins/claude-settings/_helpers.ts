/**
 * The kernel's config loading and `prepareHost` with Claude Code's settings passed as a config source, as
 * the CLI passes it (`configSources` in cli/builtins.ts): what the Claude settings tests exercise.
 */
import { loadConfig as loadKernelConfig, type LoadConfigOptions, type LoadedConfig } from "../../../core/config/config.js";
import { prepareHost as prepareKernelHost, type CreateHostOptions, type PreparedHost } from "../../../core/embed.js";
import { claudeSettingsSource } from "../../../plugins/claude-settings/index.js";

export function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  return loadKernelConfig({ sources: [claudeSettingsSource], ...options });
}

export function prepareHost(options: CreateHostOptions = {}): Promise<PreparedHost> {
  return prepareKernelHost({ configSources: [claudeSettingsSource], ...options });
}
