/**
 * One subagent file in Claude Code's format: YAML frontmatter (`name`, `description`, `tools`,
 * `disallowedTools`, `model`, `permissionMode`, `maxTurns`, `skills`, and keys Claude Code has that
 * agent-host keeps without acting on), then the system prompt. Lenient where Claude Code is: many real
 * files hold descriptions strict YAML refuses (several lines of `<example>` with `Context:` and `user:`
 * lines, unquoted), so a file that does not parse as YAML is read line by line, where only a known key at
 * the start of a line starts a field. Unknown keys are kept (`meta`) and reported, not fatal.
 */
import { type AgentDefinition, type PermissionMode } from "../../core/index.js";
import { parseYaml, splitToolList } from "../../kit/index.js";

/** Keys agent-host reads. */
const READ = ["name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns", "skills"] as const;
/** Claude Code's other keys: kept in `meta`, not reported (cosmetic, or features agent-host has not). */
const CLAUDE_KEYS = ["color", "memory", "effort", "hooks", "mcpServers", "background", "isolation", "initialPrompt"];
const NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const KNOWN = new Set<string>([...READ, ...CLAUDE_KEYS]);

/** Claude Code's permission modes → agent-host's (`dontAsk` denies what would be asked: default here, headless). */
const MODES: Record<string, PermissionMode> = { default: "default", plan: "plan", acceptEdits: "acceptEdits", bypassPermissions: "bypass", bypass: "bypass", dontAsk: "default" };

export interface AgentFile {
  definition: AgentDefinition;
  /** Frontmatter keys neither agent-host nor Claude Code knows (kept in `meta`). */
  unknownKeys: string[];
}

export type ParsedAgentFile = { ok: true; file: AgentFile } | { ok: false; error: string };

function split(text: string): { yaml: string; body: string } | undefined {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const m = /^---[ \t]*\n([\s\S]*?)\n?---[ \t]*(?:\n|$)/.exec(normalized);
  return m ? { yaml: m[1], body: normalized.slice(m[0].length) } : undefined;
}

/** The frontmatter as YAML, else line by line (a known key at a line's start begins a field; other lines continue it). */
function frontmatter(yaml: string): Record<string, unknown> | string {
  try {
    const value = parseYaml(yaml);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    return "the frontmatter must be a YAML mapping with name and description";
  } catch {
    return lineByLine(yaml);
  }
}

function lineByLine(yaml: string): Record<string, unknown> {
  const out: Record<string, string> = {};
  let key: string | undefined;
  for (const line of yaml.split("\n")) {
    const m = /^([A-Za-z][\w-]*):(?:[ \t]+(.*))?$/.exec(line);
    if (m && KNOWN.has(m[1])) {
      key = m[1];
      out[key] = unquote((m[2] ?? "").trim());
    } else if (key) out[key] += `\n${line}`;
  }
  // A YAML list written inline (`tools: ["Read", "Grep"]`) is still a list.
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(out)) result[k] = /^\[.*\]$/.test(v.trim()) ? safeYaml(v.trim()) ?? v : v.trim();
  return result;
}

function unquote(value: string): string {
  return /^(".*"|'.*')$/.test(value) ? value.slice(1, -1) : value;
}

function safeYaml(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

/** `Read, Grep` or a YAML list: names. */
function names(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  return splitToolList(Array.isArray(raw) ? raw.map(String) : String(raw));
}

/** Parse one agent file; `source` is shown in listings (`project`, `user`…). */
export function parseAgentFile(file: string, text: string, source: string): ParsedAgentFile {
  const parts = split(text);
  if (!parts) return { ok: false, error: "no YAML frontmatter (the file must start with --- and a name and description)" };
  const fm = frontmatter(parts.yaml);
  if (typeof fm === "string") return { ok: false, error: fm };
  if (typeof fm.name !== "string" || !fm.name.trim()) return { ok: false, error: "the frontmatter has no name" };
  if (!NAME_RE.test(fm.name.trim()) || fm.name.trim().length > 64) return { ok: false, error: `invalid name "${fm.name}": lowercase letters, digits and single hyphens, at most 64 characters` };
  if (typeof fm.description !== "string" || !fm.description.trim()) return { ok: false, error: "the frontmatter has no description (say when the agent should be used)" };
  const def: AgentDefinition = { name: fm.name.trim(), description: fm.description.trim().replace(/\\n/g, "\n"), prompt: parts.body.trim(), source, path: file };
  const tools = names(fm.tools);
  if (tools) def.tools = tools;
  const disallowed = names(fm.disallowedTools);
  if (disallowed) def.disallowedTools = disallowed;
  const skills = names(fm.skills);
  if (skills) def.skills = skills;
  if (fm.model !== undefined && fm.model !== "") def.model = String(fm.model).trim();
  if (fm.permissionMode !== undefined) {
    const mode = MODES[String(fm.permissionMode)];
    if (!mode) return { ok: false, error: `unknown permissionMode "${String(fm.permissionMode)}": expected one of ${Object.keys(MODES).join(", ")}` };
    def.permissionMode = mode;
  }
  if (fm.maxTurns !== undefined) {
    const n = Number(fm.maxTurns);
    if (!Number.isInteger(n) || n < 1) return { ok: false, error: `maxTurns must be a positive whole number, got ${JSON.stringify(fm.maxTurns)}` };
    def.maxTurns = n;
  }
  const rest = Object.entries(fm).filter(([k]) => !(READ as readonly string[]).includes(k));
  if (rest.length) def.meta = Object.fromEntries(rest);
  return { ok: true, file: { definition: def, unknownKeys: rest.map(([k]) => k).filter((k) => !KNOWN.has(k)) } };
}
