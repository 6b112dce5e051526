/**
 * The registration gate's checks, one per kind (kinds.ts). Every tool, command, skill, provider and
 * agent passes one before it is held; a rejection names the name and the reason, and never stops the plugin's other registrations
 * nor other plugins.
 */
import { MODEL_ALIAS_NAME } from "../../kit/provider/model-aliases.js";
import type { ModelProvider } from "../loop/model.js";
import { isZodSchema } from "../../kit/schema.js";
import { PERMISSION_MODES, RISKS, type AgentDefinition, type CommandDefinition, type JsonSchema, type SkillDefinition, type ToolDefinition } from "../types.js";

const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
/** Skills' and Claude Code's subagents' names: lowercase letters, digits and single hyphens. */
const HYPHENATED_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const HYPHENATED = "lowercase letters, digits and single hyphens, at most 64 characters";

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

/**
 * How a kind names its definitions: what the object is called, which names are valid, the rule said when
 * one is not, and (kinds whose definitions must say what they are for) what the missing description says.
 */
interface Naming {
  kind: string;
  object: string;
  valid(name: string): boolean;
  rule: string;
  description?: string;
}

/**
 * A kind's check: what every kind checks alike (an object, with a valid name that neither names nor, as an
 * alias, answers for a held entry, and its description), then `fields`, the reason its own fields refuse.
 */
function check<T>(naming: Naming, fields: (d: Partial<T>, name: string, existing: Holders) => string | undefined) {
  return (def: unknown, existing: Holders): Rejection | undefined => {
    if (typeof def !== "object" || def === null) return { name: "(unnamed)", reason: `expected ${naming.object}, got ${describe(def)}` };
    const d = def as Partial<T> & { name?: unknown; description?: unknown };
    const name = typeof d.name === "string" ? d.name : "(unnamed)";
    if (typeof d.name !== "string" || !naming.valid(d.name)) return { name, reason: `invalid ${naming.kind} name ${JSON.stringify(d.name)}: ${naming.rule}` };
    const prev = existing.get(d.name);
    if (prev) return { name, reason: `duplicate ${naming.kind} name: already registered by ${prev.source}` };
    // Rules may name a tool by an alias (`Bash(rm:*)`), so a name or alias must mean one tool only.
    const aliased = existing.aliasOf(name);
    if (aliased) return { name, reason: `${naming.kind} name is an alias of a ${naming.kind} registered by ${aliased.source}` };
    if (naming.description !== undefined && (typeof d.description !== "string" || d.description.trim() === "")) return { name, reason: `missing description${naming.description}` };
    const reason = fields(d, name, existing);
    return reason === undefined ? undefined : { name, reason };
  };
}

export const checkTool = check<ToolDefinition>({ kind: "tool", object: "a tool definition object", valid: (n) => TOOL_NAME_RE.test(n), rule: "must match ^[a-zA-Z0-9_-]{1,64}$", description: "" }, (d, name, existing) => {
  if (typeof d.run !== "function") return "missing run function";
  if (d.input !== undefined && d.inputSchema !== undefined) return "give either input (zod) or inputSchema (JSON Schema), not both";
  if (d.input === undefined && d.inputSchema === undefined) return "missing input schema (input: z.object(...) or inputSchema: { type: \"object\" })";
  if (d.input !== undefined && !isZodSchema(d.input)) return "input must be a zod schema (use the z exported by agent-host)";
  if (d.inputSchema !== undefined) {
    const s = d.inputSchema as unknown;
    if (typeof s !== "object" || s === null || Array.isArray(s)) return `inputSchema must be a JSON Schema object, got ${describe(s)}`;
    if ((s as JsonSchema).type !== "object") return `inputSchema must have type "object", got ${JSON.stringify((s as JsonSchema).type)}`;
  }
  if (d.aliases !== undefined && !(Array.isArray(d.aliases) && d.aliases.every((a) => typeof a === "string" && TOOL_NAME_RE.test(a)))) {
    return "aliases must be a list of names matching ^[a-zA-Z0-9_-]{1,64}$";
  }
  for (const alias of d.aliases ?? []) {
    const holder = alias === name ? undefined : (existing.get(alias) ?? existing.aliasOf(alias));
    if (holder) return `alias ${JSON.stringify(alias)} already names a tool registered by ${holder.source}`;
  }
  if (d.risk !== undefined && !RISKS.includes(d.risk)) return `invalid risk ${JSON.stringify(d.risk)}: expected one of ${RISKS.join(", ")}`;
  if (d.schemaDialect !== undefined && d.schemaDialect !== "draft-07" && d.schemaDialect !== "2019-09" && d.schemaDialect !== "2020-12") {
    return `schemaDialect must be "draft-07", "2019-09" or "2020-12", got ${describe(d.schemaDialect)}`;
  }
  if (d.callsTools !== undefined && typeof d.callsTools !== "boolean") return `callsTools must be true or false, got ${describe(d.callsTools)}`;
  for (const k of ["timeoutMs", "maxOutputBytes"] as const) {
    const v = d[k];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0)) return `${k} must be a positive number`;
  }
  return undefined;
});

export const checkCommand = check<CommandDefinition>(
  { kind: "command", object: "a command definition object", valid: (n) => /^[a-zA-Z0-9_:.-]{1,64}$/.test(n), rule: "must match ^[a-zA-Z0-9_:.-]{1,64}$", description: "" },
  (d) => (typeof d.run !== "function" ? "missing run function" : undefined),
);

/** The SKILL.md rules: name lowercase-hyphenated, at most 64 characters; description 1 to 1024 characters. */
export const checkSkill = check<SkillDefinition>({ kind: "skill", object: "a skill definition object", valid: (n) => n.length <= 64 && HYPHENATED_RE.test(n), rule: HYPHENATED, description: "" }, (d) => {
  if (d.description!.length > 1024) return `description is ${d.description!.length} characters; at most 1024 allowed`;
  if (typeof d.content !== "string" && typeof d.content !== "function") return "missing content (the Markdown body, or a function that loads it)";
  return undefined;
});

export const checkProvider = check<ModelProvider>({ kind: "provider", object: "a provider object", valid: (n) => /^[a-z0-9][a-z0-9_-]{0,31}$/.test(n), rule: "lowercase letters, digits, _ and -" }, (d) => {
  if (typeof d.stream !== "function") return "missing stream function";
  const aliases = d.modelAliases as unknown;
  if (aliases !== undefined && !(aliases && typeof aliases === "object" && Object.entries(aliases).every(([a, m]) => MODEL_ALIAS_NAME.test(a) && typeof m === "string" && m !== ""))) return "modelAliases must map alias names (letters, digits, . _ -) to model names";
  if (d.contextWindows !== undefined && !(Array.isArray(d.contextWindows) && d.contextWindows.every((w) => w?.model instanceof RegExp && Number.isInteger(w.tokens) && w.tokens > 0))) return "contextWindows must be a list of { model: RegExp, tokens: a positive integer }";
  return undefined;
});

/** Claude Code's subagent fields, as agent-host types them (see `AgentDefinition`). */
export const checkAgent = check<Record<keyof AgentDefinition, unknown>>(
  { kind: "agent", object: "an agent definition object", valid: (n) => n.length <= 64 && HYPHENATED_RE.test(n), rule: HYPHENATED, description: " (when to use the agent)" },
  (d) => {
    if (typeof d.prompt !== "string") return `prompt (the agent's system prompt, the Markdown body) must be a string, got ${describe(d.prompt)}`;
    for (const k of ["tools", "disallowedTools", "skills"] as const) {
      const v = d[k];
      if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === "string" && x.trim() !== ""))) return `${k} must be a list of names, got ${describe(v)}`;
    }
    if (d.model !== undefined && (typeof d.model !== "string" || d.model.trim() === "")) return "model must be a model name, an alias or inherit";
    if (d.permissionMode !== undefined && !PERMISSION_MODES.some((m) => m === d.permissionMode)) return `invalid permissionMode ${JSON.stringify(d.permissionMode)}: expected one of ${PERMISSION_MODES.join(", ")}`;
    if (d.maxTurns !== undefined && !(typeof d.maxTurns === "number" && Number.isInteger(d.maxTurns) && d.maxTurns > 0)) return "maxTurns must be a positive whole number";
    for (const k of ["source", "path"] as const) if (d[k] !== undefined && typeof d[k] !== "string") return `${k} must be a string, got ${describe(d[k])}`;
    if (d.meta !== undefined && (typeof d.meta !== "object" || d.meta === null || Array.isArray(d.meta))) return `meta must be an object, got ${describe(d.meta)}`;
    return undefined;
  },
);
