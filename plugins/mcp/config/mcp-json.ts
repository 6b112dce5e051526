/**
 * Editing the project's `.mcp.json` (the file Claude Code, Cursor and friends share): other keys and
 * entries are kept in their order, the file's indentation is kept, and the write is atomic.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { AgentError, ConfigError } from "../../../core/index.js";
import { MAX_CONFIG_DEPTH, parseJsonConfig, tooDeep, updateFileLocked } from "../../../kit/index.js";
import { isRecord } from "./values.js";

export interface McpJson {
  file: string;
  existed: boolean;
  /** The whole file; `mcpServers` is always an object here. */
  data: Record<string, unknown> & { mcpServers: Record<string, unknown> };
  indent: string;
}

export function mcpJsonPath(projectRoot: string): string {
  return path.join(projectRoot, ".mcp.json");
}

export function readMcpJson(file: string): McpJson {
  return parseMcpJson(file, existsSync(file) ? readFileSync(file, "utf8") : undefined);
}

/** The file's text (undefined: there is none) as its servers, other keys and indentation. */
export function parseMcpJson(file: string, raw: string | undefined): McpJson {
  if (raw === undefined) return { file, existed: false, data: { mcpServers: {} }, indent: "  " };
  // A byte order mark (Windows editors) is not part of the JSON; it is not written back either.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  let data: unknown;
  try {
    data = text.trim() === "" ? {} : JSON.parse(text);
  } catch (err) {
    throw new AgentError("E_CONFIG", `${file} is not valid JSON (${(err as Error).message}); fix it by hand first.`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new AgentError("E_CONFIG", `${file} must hold a JSON object like { "mcpServers": { ... } }.`);
  const obj = data as Record<string, unknown>;
  if (obj.mcpServers === undefined) obj.mcpServers = {};
  if (!obj.mcpServers || typeof obj.mcpServers !== "object" || Array.isArray(obj.mcpServers)) {
    throw new AgentError("E_CONFIG", `${file}: "mcpServers" must be an object of server entries.`);
  }
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? "  ";
  return { file, existed: true, data: obj as McpJson["data"], indent };
}

/**
 * Change the servers (`change` returns false: nothing to write) under the file's lock, on what is on
 * disk then, so parallel `agent mcp add -s project` keep every entry. Shared and committed, as Claude
 * Code writes it: an existing file keeps its mode; a new one is 0644 less the umask (readable by all,
 * never writable by others even under umask 000: it names commands that run). Secrets belong in the
 * local scope, which is 0600.
 */
export function updateMcpJson(file: string, change: (servers: McpJson["data"]["mcpServers"]) => boolean): void {
  updateFileLocked(
    file,
    (current) => {
      const json = parseMcpJson(file, current);
      return change(json.data.mcpServers) ? `${JSON.stringify(json.data, null, json.indent)}\n` : undefined;
    },
    { shared: 0o644 },
  );
}

/** What `.mcp.json` holds for the config hook: its servers, and those left out because they nest absurdly deep. */
export interface McpJsonServers {
  servers: Record<string, unknown>;
  /** Server name → where its entry went too deep (reported as that server's problem; the others load). */
  tooDeep: Map<string, string>;
}

const clip = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

/**
 * The servers of `.mcp.json` at the project root, for the config hook: `{ "mcpServers": { ... } }`, as
 * Claude Code, Cursor and Claude Desktop write it. A file that is not JSON (named with the line and
 * column of the mistake, as for any config file; a byte order mark is fine), nests absurdly deep outside
 * a server's entry, or is not that shape, is a config error naming the file and the key. A server entry
 * that nests too deep costs only that server.
 */
export async function readMcpJsonServers(file: string): Promise<McpJsonServers | undefined> {
  if (!existsSync(file)) return undefined;
  const raw = await parseJsonConfig(readFileSync(file, "utf8"), file);
  const tooDeepAt = new Map<string, string>();
  const entries = isRecord(raw) && isRecord(raw.mcpServers) ? raw.mcpServers : undefined;
  // Entries sit two levels down (mcpServers.<name>); each is measured on its own so one bad entry stays its own problem.
  for (const [name, entry] of Object.entries(entries ?? {})) {
    const at = tooDeep(entry, MAX_CONFIG_DEPTH - 2);
    if (at === undefined) continue;
    tooDeepAt.set(name, clip(`mcpServers.${name}${at === "(root)" ? "" : at.startsWith("[") ? at : `.${at}`}`));
    delete entries![name];
  }
  const deep = tooDeep(raw, MAX_CONFIG_DEPTH);
  if (deep) throw new ConfigError(file, [{ path: clip(deep), message: `nested more than ${MAX_CONFIG_DEPTH} levels deep; no config needs that` }]);
  if (!isRecord(raw)) throw new ConfigError(file, [{ path: "", message: 'expected an object with an "mcpServers" key' }]);
  const servers = raw.mcpServers ?? {};
  if (!isRecord(servers)) throw new ConfigError(file, [{ path: "mcpServers", message: "expected an object of server entries" }]);
  return { servers, tooDeep: tooDeepAt };
}
