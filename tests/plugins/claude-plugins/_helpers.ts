/** Fixture paths and a host with the built-in plugins and the Claude Code package format. */
import path from "node:path";
import { builtinPlugins } from "../../../cli/builtins.js";
import { claudePluginFormat } from "../../../plugins/claude-plugins/format.js";
import type { CreateHostOptions } from "../../../core/embed.js";
import { testHost } from "../../helpers/host.js";
import type { TempProject } from "../../helpers/project.js";

export const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures/claude-plugins");
export const MARKETPLACE = path.join(FIXTURES, "marketplace");
export const COMMIT_TOOLS = path.join(MARKETPLACE, "plugins/commit-tools");
export const SERVER_TOOLS = path.join(MARKETPLACE, "plugins/server-tools");
export const AGENT_PLUGIN = path.join(FIXTURES, "agent-plugin");

/** A trusted host of `project` with the built-ins, the user config in `project.configHome` and `plugins` loaded. */
export function pluginHost(project: TempProject, options: CreateHostOptions = {}) {
  return testHost({
    project,
    builtins: builtinPlugins,
    userConfigDir: project.configHome,
    packageFormats: [claudePluginFormat({ userConfigDir: project.configHome })],
    trust: true,
    audit: false,
    ...options,
  });
}
