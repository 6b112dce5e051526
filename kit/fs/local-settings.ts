/**
 * The project's local settings: `.agent/settings.local.json`, an agent config file of this machine
 * and this person only (never committed). The config loader reads it after the project config; the
 * CLI writes to it when you answer "always for this project", and `agent mcp add -s local` puts servers
 * there. Why our own file and not Claude Code's `.claude/settings.local.json`: that one is Claude
 * Code's, read here through a translation (its rule dialect, its keys), and writing our rules or
 * server entries into it would change what Claude Code does in the same project. How the file is read
 * and written; that a folder's trust admits its parts as the user's is the kernel's (core/config/trust.ts).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { SECRET_FILE_MODE } from "./atomic-write.js";
import { AgentError } from "../errors.js";
import { updateFileLocked } from "./locked-update.js";
import { ensureAgentIgnores } from "./agent-ignores.js";
import { noteLocalWrite } from "./trust-store.js";
import { defaultUserConfigDir } from "./user-config-dir.js";

export const LOCAL_SETTINGS_FILE = path.join(".agent", "settings.local.json");

/** What `.agent/.gitignore` must list so the file is never shared, whatever the project's own .gitignore says. */
const IGNORED = "settings.local.json";

export function localSettingsPath(projectRoot: string): string {
  return path.join(projectRoot, LOCAL_SETTINGS_FILE);
}

/** The file's object (empty when it does not exist); a file that is not a JSON object is an error to fix by hand. */
export function readLocalSettings(projectRoot: string): Record<string, unknown> {
  const file = localSettingsPath(projectRoot);
  return existsSync(file) ? parseLocalSettings(file, readFileSync(file, "utf8")) : {};
}

function parseLocalSettings(file: string, raw: string | undefined): Record<string, unknown> {
  const text = (raw ?? "").replace(/^\uFEFF/, "");
  let data: unknown;
  try {
    data = text.trim() ? JSON.parse(text) : {};
  } catch (err) {
    throw new AgentError("E_CONFIG", `${file} is not valid JSON (${(err as Error).message}); fix it by hand first.`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new AgentError("E_CONFIG", `${file} must hold a JSON object.`);
  return data as Record<string, unknown>;
}

/**
 * Change the file (created with its folder when missing) and write it atomically, mode 0600 whatever
 * the umask (it holds servers' `-e` values and headers): a file found 0644 is 0600 once rewritten.
 * `change` is applied under the file's lock to what is on disk then (another process may have written
 * since anything was read), so concurrent writers never lose each other's entries. `.agent/.gitignore`
 * is made to list it. Returns the file's path.
 */
export function updateLocalSettings(projectRoot: string, change: (data: Record<string, unknown>) => void): string {
  const file = localSettingsPath(projectRoot);
  mkdirSync(path.dirname(file), { recursive: true });
  ensureIgnored(path.dirname(file));
  const userConfigDir = defaultUserConfigDir();
  updateFileLocked(
    file,
    (current) => {
      const data = parseLocalSettings(file, current);
      change(data);
      return `${JSON.stringify(data, null, 2)}\n`;
    },
    SECRET_FILE_MODE,
    // Still under the lock: the digest noted is of what this call wrote, not of a later writer's file.
    { afterWrite: () => noteLocalWrite(userConfigDir, projectRoot, file) },
  );
  return file;
}

/** Add `rules` to `permissions.allow` (each once). Returns the file and the rules that were new. */
export function addLocalAllowRules(projectRoot: string, rules: readonly string[]): { file: string; added: string[] } {
  const added: string[] = [];
  const file = updateLocalSettings(projectRoot, (data) => {
    const perms = (data.permissions && typeof data.permissions === "object" && !Array.isArray(data.permissions) ? data.permissions : (data.permissions = {})) as Record<string, unknown>;
    const allow = Array.isArray(perms.allow) ? (perms.allow as unknown[]) : (perms.allow = []);
    for (const r of rules) {
      if (allow.includes(r)) continue;
      allow.push(r);
      added.push(r);
    }
  });
  return { file, added };
}

function ensureIgnored(dir: string): void {
  ensureAgentIgnores(dir, IGNORED);
}
