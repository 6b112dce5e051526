/**
 * Claude Code's settings files as a config source: `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR`),
 * then `.claude/settings.json` and `.claude/settings.local.json` at the project root, under agent-host's
 * own files; the managed settings file, an administrator's policy, over them all. The user wrote them (or
 * accepted them in Claude Code), so they are read with the config files, not through a plugin's `config`
 * hook (which may not add allow rules). The kernel applies the folder's trust to the project's two files
 * (scope `folder`) and keeps the protected paths (`.claude/`, the user folder) whether this source is
 * passed or not. `compat.claude: false` in agent-host's own config turns it off.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { ConfigSource, ConfigSourceFile } from "../../core/embed.js";
import { claudeUserDir } from "../../kit/index.js";
import { readClaudeSettings, type ClaudeSettings } from "./read.js";

export { translateRule, readClaudeSettings, type ClaudeSettings } from "./read.js";

/** The source the CLI passes (`createHost({ configSources: [claudeSettingsSource] })`). */
export const claudeSettingsSource: ConfigSource = {
  name: "claude",
  async read({ projectRoot, userFiles }) {
    const out: ConfigSourceFile[] = [];
    for (const { file, root } of claudeSettingsFiles(projectRoot, userFiles ? claudeUserDir() : undefined)) {
      out.push(sourceFile(await readClaudeSettings(file, root, projectRoot), root === projectRoot ? "folder" : "user"));
    }
    const managed = claudeManagedSettingsFile();
    if (managed) out.push(sourceFile(await readClaudeSettings(managed, projectRoot, projectRoot), "policy"));
    return out;
  },
};

function sourceFile(settings: ClaudeSettings, scope: ConfigSourceFile["scope"]): ConfigSourceFile {
  const { file, core, extra, origins, warnings, managedRulesOnly } = settings;
  return { file, scope, core, extra, origins, warnings, ...(scope === "policy" && managedRulesOnly ? { onlyItsAllowRules: true } : {}) };
}

/**
 * Claude Code's managed (enterprise) settings: `/etc/claude-code/managed-settings.json` on Linux,
 * `/Library/Application Support/ClaudeCode/managed-settings.json` on macOS; `AGENT_CLAUDE_MANAGED_SETTINGS`
 * names another file (tests, unusual installs). An administrator's policy: read last, over every other file.
 */
function claudeManagedSettingsFile(): string | undefined {
  const file =
    process.env.AGENT_CLAUDE_MANAGED_SETTINGS ||
    (process.platform === "darwin" ? "/Library/Application Support/ClaudeCode/managed-settings.json" : process.platform === "linux" ? "/etc/claude-code/managed-settings.json" : undefined);
  try {
    return file && existsSync(file) && statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The settings files, lowest precedence first (Claude Code's own order: user, project, local). */
function claudeSettingsFiles(projectRoot: string, userDir: string | undefined): { file: string; root: string }[] {
  const out: { file: string; root: string }[] = [];
  // `/path` in a rule is relative to the folder holding `.claude/` (home for the user file).
  if (userDir) out.push({ file: path.join(userDir, "settings.json"), root: path.dirname(userDir) });
  for (const name of ["settings.json", "settings.local.json"]) out.push({ file: path.join(projectRoot, ".claude", name), root: projectRoot });
  return out.filter((f) => {
    try {
      return existsSync(f.file) && statSync(f.file).isFile();
    } catch {
      return false;
    }
  });
}

