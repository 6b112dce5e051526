/**
 * Where `agent mcp add -s <scope>` writes a server, as Claude Code's scopes: `local` (the default) is
 * this project on this machine only, `.agent/settings.local.json` (never committed; Claude Code keeps
 * these in ~/.claude.json per project); `project` is `.mcp.json` at the project root, shared with
 * everyone who clones it; `user` is the user config (`~/.config/agent/config.json`, or the YAML one
 * when that is the file in use), for every project. The local and user files are written mode 0600
 * (they hold `-e` values and headers); `.mcp.json` is the project's shared, committed file: it keeps
 * its mode, and a new one is 0644 (never writable by others, whatever the umask: it names commands
 * that run).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../../core/index.js";
import { defaultUserConfigDir, localSettingsPath, readLocalSettings, updateLocalSettings } from "../../../core/embed.js";
import { updateFileLocked } from "../../../kit/index.js";
import { mcpJsonPath, readMcpJson, updateMcpJson } from "../config/mcp-json.js";

export const SCOPES = ["local", "project", "user"] as const;
export type Scope = (typeof SCOPES)[number];

export interface ScopeFile {
  scope: Scope;
  file: string;
  servers(): Promise<Record<string, unknown>>;
  /**
   * Add (or, with undefined, delete) a server entry and write the file, under its lock on what is on
   * disk then. Adding a name the file already holds (another `agent mcp add` got there first) is an
   * error: one add never replaces another's entry unseen.
   */
  set(name: string, entry: unknown | undefined): Promise<void>;
}

export function parseScope(value: string | undefined): Scope {
  const v = value ?? "local";
  if (!(SCOPES as readonly string[]).includes(v)) throw new AgentError("E_USAGE", `--scope must be local, project or user; got "${value}"`);
  return v as Scope;
}

function taken(name: string, file: string, scope: Scope): AgentError {
  return new AgentError("E_USAGE", `an MCP server named "${name}" is already in ${file}; remove it first (agent mcp remove -s ${scope} ${name}).`);
}

/** Apply an add or a delete to `servers`; false when a delete finds nothing to delete. */
function apply(servers: Record<string, unknown>, name: string, entry: unknown, file: string, scope: Scope): boolean {
  if (entry === undefined) {
    if (!Object.hasOwn(servers, name)) return false;
    delete servers[name];
    return true;
  }
  if (Object.hasOwn(servers, name)) throw taken(name, file, scope);
  servers[name] = entry;
  return true;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function scopeFile(scope: Scope, projectRoot: string): ScopeFile {
  if (scope === "project") {
    const file = mcpJsonPath(projectRoot);
    return {
      scope,
      file,
      servers: async () => readMcpJson(file).data.mcpServers,
      async set(name, entry) {
        updateMcpJson(file, (servers) => apply(servers, name, entry, file, scope));
      },
    };
  }
  if (scope === "local") {
    return {
      scope,
      file: localSettingsPath(projectRoot),
      servers: async () => obj(readLocalSettings(projectRoot).mcpServers),
      async set(name, entry) {
        const file = localSettingsPath(projectRoot);
        updateLocalSettings(projectRoot, (data) => {
          const servers = obj(data.mcpServers);
          apply(servers, name, entry, file, scope);
          if (Object.keys(servers).length) data.mcpServers = servers;
          else delete data.mcpServers;
        });
      },
    };
  }
  return userScope();
}

/** The user config file the loader reads (config.json, else config.yaml / .yml; config.json when none exists). */
function userScope(): ScopeFile {
  const dir = defaultUserConfigDir();
  const file = ["config.json", "config.yaml", "config.yml"].map((n) => path.join(dir, n)).find((f) => existsSync(f)) ?? path.join(dir, "config.json");
  const yaml = /\.ya?ml$/.test(file);
  const bad = (err: unknown): never => {
    throw new AgentError("E_CONFIG", `${file} could not be read (${(err as Error).message}); fix it by hand first.`);
  };
  return {
    scope: "user",
    file,
    async servers() {
      if (!existsSync(file)) return {};
      const text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
      try {
        return obj(obj(yaml ? (await import("yaml")).parse(text) : text.trim() ? JSON.parse(text) : {}).mcpServers);
      } catch (err) {
        return bad(err);
      }
    },
    async set(name, entry) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Loaded before the lock: the change runs under it and must not await.
      const yamlLib = yaml ? await import("yaml") : undefined;
      updateFileLocked(
        file,
        (current) => {
          const raw = (current ?? "").replace(/^\uFEFF/, "");
          if (yamlLib) {
            // The yaml package's document API keeps the file's comments.
            const doc = yamlLib.parseDocument(raw);
            if (doc.errors.length) bad(doc.errors[0]);
            const servers = obj((doc.toJS() as { mcpServers?: unknown } | null)?.mcpServers);
            if (!apply(servers, name, entry, file, "user")) return undefined;
            if (entry === undefined) doc.deleteIn(["mcpServers", name]);
            else doc.setIn(["mcpServers", name], doc.createNode(entry));
            return doc.toString();
          }
          let data: Record<string, unknown> = {};
          try {
            data = obj(raw.trim() ? JSON.parse(raw) : {});
          } catch (err) {
            bad(err);
          }
          const servers = obj(data.mcpServers);
          if (!apply(servers, name, entry, file, "user")) return undefined;
          data.mcpServers = servers;
          return `${JSON.stringify(data, null, /^([ \t]+)"/m.exec(raw)?.[1] ?? "  ")}\n`;
        },
        // Servers' `-e` values and headers: readable by this user only, whatever the umask (a file
        // that was 0644 is 0600 once rewritten).
        0o600,
      );
    },
  };
}
