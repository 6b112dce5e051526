/**
 * Tool calls as Claude Code's hook scripts expect them: the built-in tools under Claude Code's names
 * (`Bash`, `Read`…) with Claude Code's field names and absolute file paths, and back again for an
 * `updatedInput`. The table is in the README ("Tool names and fields"). Other tools keep their name
 * (MCP tools are `mcp__server__tool` in both) and their input as it is.
 */
import path from "node:path";
import type { RegisteredTool, ToolResult } from "../../core/index.js";

interface Mapping {
  claude: string;
  /** [host field, Claude Code field]. */
  fields: readonly (readonly [string, string])[];
  /** Host fields that hold paths (relative to the project root here, absolute for the scripts). */
  paths: readonly string[];
}

export const TOOL_MAP: Readonly<Record<string, Mapping>> = {
  run_command: { claude: "Bash", fields: [["command", "command"], ["timeout_ms", "timeout"], ["cwd", "cwd"]], paths: [] },
  read_file: { claude: "Read", fields: [["path", "file_path"], ["offset", "offset"], ["limit", "limit"]], paths: ["path"] },
  write_file: { claude: "Write", fields: [["path", "file_path"], ["content", "content"]], paths: ["path"] },
  edit_file: { claude: "Edit", fields: [["path", "file_path"], ["old_string", "old_string"], ["new_string", "new_string"], ["replace_all", "replace_all"]], paths: ["path"] },
  list_files: { claude: "Glob", fields: [["pattern", "pattern"], ["path", "path"], ["limit", "limit"]], paths: ["path"] },
  grep: { claude: "Grep", fields: [["pattern", "pattern"], ["path", "path"], ["glob", "glob"], ["ignore_case", "-i"], ["max_results", "head_limit"]], paths: ["path"] },
};

/** The mapping for a tool: only for the built-in tool itself (it declares Claude Code's name as an alias). */
function mappingOf(tool: Pick<RegisteredTool, "name" | "aliases">): Mapping | undefined {
  const m = Object.hasOwn(TOOL_MAP, tool.name) ? TOOL_MAP[tool.name] : undefined;
  return m && tool.aliases?.includes(m.claude) ? m : undefined;
}

/** The name scripts see: Claude Code's where one exists (a mapped tool, else a tool's first alias). */
export function claudeName(tool: Pick<RegisteredTool, "name" | "aliases">): string {
  return mappingOf(tool)?.claude ?? tool.aliases?.[0] ?? tool.name;
}

/** Every name a matcher may use for the tool. */
export function toolNames(tool: Pick<RegisteredTool, "name" | "aliases">): string[] {
  return [tool.name, ...(tool.aliases ?? [])];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** `tool_input` for the scripts. */
export function toClaudeInput(tool: Pick<RegisteredTool, "name" | "aliases">, input: unknown, root: string): unknown {
  const m = mappingOf(tool);
  if (!m || !isObj(input)) return input;
  const out: Obj = {};
  const mapped = new Set<string>();
  for (const [host, claude] of m.fields) {
    mapped.add(host);
    const v = input[host];
    if (v === undefined) continue;
    out[claude] = m.paths.includes(host) && typeof v === "string" ? path.resolve(root, v) : v;
  }
  // A field the table does not know (a newer version of the tool) keeps its own name.
  for (const [k, v] of Object.entries(input)) if (!mapped.has(k) && !(k in out)) out[k] = v;
  return out;
}

/**
 * An `updatedInput` (Claude Code's field names, or this host's) as the tool's input. It replaces the
 * whole input, as in Claude Code. Paths inside the project become relative; a path outside stays
 * absolute, so the gate's rules and the workspace see where it really points. Claude-only fields
 * (`description`, `run_in_background`…) are dropped.
 */
export function fromClaudeInput(tool: Pick<RegisteredTool, "name" | "aliases">, updated: unknown, root: string): unknown {
  const m = mappingOf(tool);
  if (!m || !isObj(updated)) return updated;
  const out: Obj = {};
  for (const [k, v] of Object.entries(updated)) {
    const byClaude = m.fields.find(([, c]) => c === k);
    const host = byClaude?.[0] ?? m.fields.find(([h]) => h === k)?.[0];
    if (!host) continue;
    out[host] = m.paths.includes(host) && typeof v === "string" ? projectRelative(root, v) : v;
  }
  return out;
}

function projectRelative(root: string, p: string): string {
  const abs = path.resolve(root, p);
  const rel = path.relative(root, abs);
  if (rel === "") return ".";
  return rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel;
}

/** `tool_response` for PostToolUse: Claude Code's shape for `Bash` and the file tools, else the output (and any structured result). */
export function toClaudeResponse(tool: Pick<RegisteredTool, "name" | "aliases">, input: unknown, result: ToolResult, root: string): unknown {
  const m = mappingOf(tool);
  const s = isObj(result.structured) ? result.structured : undefined;
  if (m?.claude === "Bash") {
    return { stdout: typeof s?.stdout === "string" ? s.stdout : result.output, stderr: typeof s?.stderr === "string" ? s.stderr : "", interrupted: false, isImage: false };
  }
  if (m && m.paths.length && isObj(input)) {
    const p = typeof input.path === "string" ? path.resolve(root, input.path) : root;
    return { filePath: p, success: result.ok, output: result.output };
  }
  return s ? { ...s, output: result.output } : { output: result.output };
}

/** `error` for PostToolUseFailure: for `Bash`, Claude Code's `Exit code N` line, then the output. */
export function failureText(tool: Pick<RegisteredTool, "name" | "aliases">, result: ToolResult): string {
  const s = isObj(result.structured) ? result.structured : undefined;
  if (mappingOf(tool)?.claude === "Bash" && s && typeof s.exitCode === "number") {
    return `Exit code ${s.exitCode}\n${[s.stdout, s.stderr].filter((x) => typeof x === "string" && x).join("")}`.trimEnd();
  }
  return result.output;
}

/** An `updatedToolOutput` as the text the model gets: a string as it is, Bash's shape as its streams, anything else as JSON. */
export function outputText(value: unknown): string {
  if (typeof value === "string") return value;
  if (isObj(value) && (typeof value.stdout === "string" || typeof value.stderr === "string")) {
    return [value.stdout, value.stderr].filter((x) => typeof x === "string" && x).join("\n");
  }
  return JSON.stringify(value) ?? "";
}
