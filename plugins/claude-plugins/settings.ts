/**
 * A plugin enabled or disabled for a project is recorded where Claude Code records it, so both tools
 * agree: `enabledPlugins` of `.claude/settings.json` (project scope, shared with the team) or of
 * `.claude/settings.local.json` (local scope, git-ignored, 0600). The rest of the file is kept as it was.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../core/index.js";
import { SECRET_FILE_MODE, updateFileLocked } from "../../kit/index.js";
import { isPlainObject } from "./package.js";

export type Scope = "user" | "project" | "local";

export function parseScope(value: string | undefined): Scope {
  if (value === undefined) return "user";
  if (value === "user" || value === "project" || value === "local") return value;
  throw new AgentError("E_USAGE", `--scope must be user, project or local, not "${value}"`);
}

export function settingsFileOf(projectRoot: string, scope: "project" | "local"): string {
  return path.join(projectRoot, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
}

export function setProjectChoice(projectRoot: string, scope: "project" | "local", id: string, on: boolean | undefined): string {
  const file = settingsFileOf(projectRoot, scope);
  mkdirSync(path.dirname(file), { recursive: true });
  updateFileLocked(
    file,
    (current) => {
      let data: Record<string, unknown> = {};
      if (current?.trim()) {
        try {
          const parsed = JSON.parse(current);
          if (isPlainObject(parsed)) data = parsed;
          else throw new Error("not an object");
        } catch (err) {
          throw new AgentError("E_CONFIG", `${file} is not a JSON object (${(err as Error).message}); fix it by hand first`);
        }
      }
      const enabled = isPlainObject(data.enabledPlugins) ? { ...data.enabledPlugins } : {};
      if (on === undefined) delete enabled[id];
      else enabled[id] = on;
      return `${JSON.stringify({ ...data, enabledPlugins: enabled }, null, 2)}\n`;
    },
    scope === "local" ? SECRET_FILE_MODE : undefined,
  );
  return file;
}
