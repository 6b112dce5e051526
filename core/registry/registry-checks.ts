/**
 * The registration gate's checks, one per kind (kinds.ts). Every tool, command, skill, provider and
 * agent passes one before it is held; a rejection names the name and the reason, and never stops the plugin's other registrations
 * nor other plugins.
 */
import { MODEL_ALIAS_NAME } from "../../kit/provider/model-aliases.js";
import type { ModelProvider } from "../loop/model.js";
import { isZodSchema } from "../../kit/schema.js";
import { PERMISSION_MODES, RISKS, type AgentDefinition, type CommandDefinition, type JsonSchema, type SkillDefinition, type ToolDefinition } from "../types.js";

export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
export const COMMAND_NAME_RE = /^[a-zA-Z0-9_:.-]{1,64}$/;
export const SKILL_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const PROVIDER_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Claude Code's subagent names: lowercase letters, digits and single hyphens. */
export const AGENT_NAME_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export type Rejection = { name: string; reason: string };

/** What a check needs of the entries already held: who has a name, and (tools) who answers to it as an alias. */
export interface Holders {
  get(name: string): { source: string } | undefined;
  /** The held entry that has `name` among its aliases (an index: a server's hundreds of tools must not scan all). */
  aliasOf(name: string): { source: string } | undefined;
}

function describe(v: unknown): string {
  return Array.isArray(v) ? "an array" : v === null ? "null" : typeof v;
}

/** How a kind names its definitions: what the object is called, which names are valid, and the rule said when one is not. */
interface Naming {
  kind: string;
  object: string;
  valid(name: string): boolean;
  rule: string;
}

/** What every kind checks alike: an object, with a valid name nobody holds yet. The definition and its name, or the rejection. */
function named<T>(def: unknown, existing: Holders, naming: Naming): { d: Partial<T>; name: string } | Rejection {
  if (typeof def !== "object" || def === null) return { name: "(unnamed)", reason: `expected ${naming.object}, got ${describe(def)}` };
  const d = def as Partial<T> & { name?: unknown };
  const name = typeof d.name === "string" ? d.name : "(unnamed)";
  if (typeof d.name !== "string" || !naming.valid(d.name)) return { name, reason: `invalid ${naming.kind} name ${JSON.stringify(d.name)}: ${naming.rule}` };
  const prev = existing.get(d.name);
  if (prev) return { name, reason: `duplicate ${naming.kind} name: already registered by ${prev.source}` };
  return { d, name };
}

const isRejection = (r: object): r is Rejection => "reason" in r;

const TOOL_NAMING: Naming = { kind: "tool", object: "a tool definition object", valid: (n) => TOOL_NAME_RE.test(n), rule: "must match ^[a-zA-Z0-9_-]{1,64}$" };
const COMMAND_NAMING: Naming = { kind: "command", object: "a command definition object", valid: (n) => COMMAND_NAME_RE.test(n), rule: "must match ^[a-zA-Z0-9_:.-]{1,64}$" };
const HYPHENATED = "lowercase letters, digits and single hyphens, at most 64 characters";
const SKILL_NAMING: Naming = { kind: "skill", object: "a skill definition object", valid: (n) => n.length <= 64 && SKILL_NAME_RE.test(n), rule: HYPHENATED };
const PROVIDER_NAMING: Naming = { kind: "provider", object: "a provider object", valid: (n) => PROVIDER_NAME_RE.test(n), rule: "lowercase letters, digits, _ and -" };
const AGENT_NAMING: Naming = { kind: "agent", object: "an agent definition object", valid: (n) => n.length <= 64 && AGENT_NAME_RE.test(n), rule: HYPHENATED };

export function checkTool(def: unknown, existing: Holders): Rejection | undefined {
  const r = named<ToolDefinition>(def, existing, TOOL_NAMING);
  if (isRejection(r)) return r;
  const { d, name } = r;
  // Rules may name a tool by an alias (`Bash(rm:*)`), so a name or alias must mean one tool only.
  const aliased = existing.aliasOf(name);
  if (aliased) return { name, reason: `tool name is an alias of a tool registered by ${aliased.source}` };
  if (typeof d.description !== "string" || d.description.trim() === "") return { name, reason: "missing description" };
  if (typeof d.run !== "function") return { name, reason: "missing run function" };
  if (d.input !== undefined && d.inputSchema !== undefined) return { name, reason: "give either input (zod) or inputSchema (JSON Schema), not both" };
  if (d.input === undefined && d.inputSchema === undefined) return { name, reason: "missing input schema (input: z.object(...) or inputSchema: { type: \"object\" })" };
  if (d.input !== undefined && !isZodSchema(d.input)) return { name, reason: "input must be a zod schema (use the z exported by agent-host)" };
  if (d.inputSchema !== undefined) {
    const s = d.inputSchema as unknown;
    if (typeof s !== "object" || s === null || Array.isArray(s)) return { name, reason: `inputSchema must be a JSON Schema object, got ${describe(s)}` };
    if ((s as JsonSchema).type !== "object") return { name, reason: `inputSchema must have type "object", got ${JSON.stringify((s as JsonSchema).type)}` };
  }
  if (d.aliases !== undefined && !(Array.isArray(d.aliases) && d.aliases.every((a) => typeof a === "string" && TOOL_NAME_RE.test(a)))) {
    return { name, reason: "aliases must be a list of names matching ^[a-zA-Z0-9_-]{1,64}$" };
  }
  for (const alias of d.aliases ?? []) {
    const holder = alias === name ? undefined : (existing.get(alias) ?? existing.aliasOf(alias));
    if (holder) return { name, reason: `alias ${JSON.stringify(alias)} already names a tool registered by ${holder.source}` };
  }
  if (d.risk !== undefined && !RISKS.includes(d.risk)) return { name, reason: `invalid risk ${JSON.stringify(d.risk)}: expected one of ${RISKS.join(", ")}` };
  if (d.schemaDialect !== undefined && d.schemaDialect !== "draft-07" && d.schemaDialect !== "2019-09" && d.schemaDialect !== "2020-12") {
    return { name, reason: `schemaDialect must be "draft-07", "2019-09" or "2020-12", got ${describe(d.schemaDialect)}` };
  }
  if (d.callsTools !== undefined && typeof d.callsTools !== "boolean") return { name, reason: `callsTools must be true or false, got ${describe(d.callsTools)}` };
  for (const k of ["timeoutMs", "maxOutputBytes"] as const) {
    const v = d[k];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0)) return { name, reason: `${k} must be a positive number` };
  }
  return undefined;
}

export function checkCommand(def: unknown, existing: Holders): Rejection | undefined {
  const r = named<CommandDefinition>(def, existing, COMMAND_NAMING);
  if (isRejection(r)) return r;
  const { d, name } = r;
  if (typeof d.description !== "string" || d.description.trim() === "") return { name, reason: "missing description" };
  if (typeof d.run !== "function") return { name, reason: "missing run function" };
  return undefined;
}

/** The SKILL.md rules: name lowercase-hyphenated, at most 64 characters; description 1 to 1024 characters. */
export function checkSkill(def: unknown, existing: Holders): Rejection | undefined {
  const r = named<SkillDefinition>(def, existing, SKILL_NAMING);
  if (isRejection(r)) return r;
  const { d, name } = r;
  if (typeof d.description !== "string" || d.description.trim() === "") return { name, reason: "missing description" };
  if (d.description.length > 1024) return { name, reason: `description is ${d.description.length} characters; at most 1024 allowed` };
  if (typeof d.content !== "string" && typeof d.content !== "function") return { name, reason: "missing content (the Markdown body, or a function that loads it)" };
  return undefined;
}

export function checkProvider(p: unknown, existing: Holders): Rejection | undefined {
  const r = named<ModelProvider>(p, existing, PROVIDER_NAMING);
  if (isRejection(r)) return r;
  const { d, name } = r;
  if (typeof d.stream !== "function") return { name, reason: "missing stream function" };
  const aliases = d.modelAliases as unknown;
  if (aliases !== undefined && !(aliases && typeof aliases === "object" && Object.entries(aliases).every(([a, m]) => MODEL_ALIAS_NAME.test(a) && typeof m === "string" && m !== ""))) return { name, reason: "modelAliases must map alias names (letters, digits, . _ -) to model names" };
  if (d.contextWindows !== undefined && !(Array.isArray(d.contextWindows) && d.contextWindows.every((w) => w?.model instanceof RegExp && Number.isInteger(w.tokens) && w.tokens > 0))) return { name, reason: "contextWindows must be a list of { model: RegExp, tokens: a positive integer }" };
  return undefined;
}

/** Claude Code's subagent fields, as agent-host types them (see `AgentDefinition`). */
export function checkAgent(def: unknown, existing: Holders): Rejection | undefined {
  const r = named<Record<keyof AgentDefinition, unknown>>(def, existing, AGENT_NAMING);
  if (isRejection(r)) return r;
  const { d, name } = r;
  if (typeof d.description !== "string" || d.description.trim() === "") return { name, reason: "missing description (when to use the agent)" };
  if (typeof d.prompt !== "string") return { name, reason: `prompt (the agent's system prompt, the Markdown body) must be a string, got ${describe(d.prompt)}` };
  for (const k of ["tools", "disallowedTools", "skills"] as const) {
    const v = d[k];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === "string" && x.trim() !== ""))) return { name, reason: `${k} must be a list of names, got ${describe(v)}` };
  }
  if (d.model !== undefined && (typeof d.model !== "string" || d.model.trim() === "")) return { name, reason: "model must be a model name, an alias or inherit" };
  if (d.permissionMode !== undefined && !PERMISSION_MODES.some((m) => m === d.permissionMode))
    return { name, reason: `invalid permissionMode ${JSON.stringify(d.permissionMode)}: expected one of ${PERMISSION_MODES.join(", ")}` };
  if (d.maxTurns !== undefined && !(typeof d.maxTurns === "number" && Number.isInteger(d.maxTurns) && d.maxTurns > 0)) return { name, reason: "maxTurns must be a positive whole number" };
  for (const k of ["source", "path"] as const) if (d[k] !== undefined && typeof d[k] !== "string") return { name, reason: `${k} must be a string, got ${describe(d[k])}` };
  if (d.meta !== undefined && (typeof d.meta !== "object" || d.meta === null || Array.isArray(d.meta))) return { name, reason: `meta must be an object, got ${describe(d.meta)}` };
  return undefined;
}
