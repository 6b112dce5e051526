/**
 * One generic registry, one per registration kind (kinds.ts): the registration gate's check, then an
 * entry built from the definition, held under its name with the plugin that added it. What the registry
 * hands out (`view`) is a frozen description; definitions (with their `run`) stay inside. The kinds'
 * entry builders are here too.
 */
import type { ToolOverride } from "../config/config-schema.js";
import { freezeCopy } from "../../kit/freeze.js";
import type { ModelProvider } from "../loop/model.js";
import { toolNameMatcher } from "../../kit/rules/parse.js";
import { checkTool, type Holders, type Rejection } from "./registry-checks.js";
import { jsonSchemaValidator, zodToJsonSchema, zodValidator, type LazyValidator, type Validation, type Validator } from "../../kit/schema.js";
import type {
  AgentDefinition,
  CommandDefinition,
  JsonSchema,
  RegisteredAgent,
  RegisteredCommand,
  RegisteredSkill,
  RegisteredTool,
  Risk,
  SkillDefinition,
  ToolDefinition,
} from "../types.js";

export type { Rejection };

export interface Entry<V> {
  name: string;
  plugin: string;
  source: string;
  /** What the registry shows: frozen. */
  view: V;
}

export class Registry<E extends Entry<unknown>> {
  /** @internal the gate reads it directly */
  readonly entries = new Map<string, E>();
  /** Alias → the entry that answers to it. */
  private readonly aliases = new Map<string, E>();
  private readonly holders: Holders = { get: (name) => this.entries.get(name), aliasOf: (name) => this.aliases.get(name) };

  constructor(
    /** The kind's singular name (`tool`), for reports and audit records. */
    readonly kind: string,
    private readonly admit: (def: unknown, plugin: string, held: Holders) => E | Rejection,
  ) {}

  /** The check and the entry, or why it was refused. */
  add(plugin: string, def: unknown): E | Rejection {
    const entry = this.admit(def, plugin, this.holders);
    if (!("view" in entry)) return entry;
    this.entries.set(entry.name, entry);
    for (const alias of aliasesOf(entry)) this.aliases.set(alias, entry);
    return entry;
  }

  /** Remove a name, only if `plugin` added it. */
  remove(plugin: string, name: string): boolean {
    const e = this.entries.get(name);
    if (!e || e.plugin !== plugin) return false;
    this.drop(e);
    return true;
  }

  /** Drop everything a plugin added (it failed in setup). */
  removeAll(plugin: string): void {
    for (const e of [...this.entries.values()]) if (e.plugin === plugin) this.drop(e);
  }

  private drop(e: E): void {
    this.entries.delete(e.name);
    for (const alias of aliasesOf(e)) if (this.aliases.get(alias) === e) this.aliases.delete(alias);
  }

  get(name: string): E | undefined {
    return this.entries.get(name);
  }

  views(): E["view"][] {
    return [...this.entries.values()].map((e) => e.view);
  }

  count(plugin: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.plugin === plugin) n++;
    return n;
  }
}

function aliasesOf(e: Entry<unknown>): readonly string[] {
  return (e.view as { aliases?: readonly string[] } | undefined)?.aliases ?? [];
}

/** A tool in the registry, with what the gate needs to call it. */
export interface ToolEntry extends Entry<RegisteredTool> {
  risk: Risk;
  timeoutMs?: number;
  maxOutputBytes?: number;
  definition: ToolDefinition;
  /** Sync validator for zod tools; lazily compiled for JSON Schema tools. */
  validator: Validator | (() => Promise<Validator>);
  zod: boolean;
  /** As registered (`ToolDefinition.callsTools`): false when its run never calls tools. */
  callsTools: boolean;
}

/** The tool's validator; a JSON Schema one is a promise only until its first compilation. */
export function validatorOf(tool: ToolEntry): Validator | Promise<Validator> {
  if (tool.zod) return tool.validator as Validator;
  const lazy = tool.validator as LazyValidator;
  return lazy.compiled ?? lazy();
}

/** Check an input (the caller's, or one a handler rewrote) against the tool's schema; no input is `{}`. */
export async function validateInput(tool: ToolEntry, input: unknown): Promise<Validation> {
  let v = validatorOf(tool);
  if (v instanceof Promise) v = await v;
  return v(input === undefined ? {} : input);
}

export type CommandEntry = ReturnType<typeof commandEntry>;

export type SkillEntry = Entry<RegisteredSkill>;

export interface ProviderEntry extends Entry<ModelProvider> {
  provider: ModelProvider;
}

export type AgentEntry = Entry<RegisteredAgent>;

/** Per-tool config overrides; keys may be globs. Matching globs merge in order, and the exact name's fields win over them. */
export function findOverride(overrides: Readonly<Record<string, ToolOverride>> | undefined, name: string): ToolOverride | undefined {
  if (!overrides) return undefined;
  let merged: ToolOverride | undefined;
  for (const [key, value] of Object.entries(overrides)) {
    if (key !== name && /[*?]/.test(key) && toolNameMatcher(key)(name)) merged = { ...merged, ...value };
  }
  const exact = Object.hasOwn(overrides, name) ? overrides[name] : undefined;
  return exact ? { ...merged, ...exact } : merged;
}

export function toolRegistry(overrides: () => Readonly<Record<string, ToolOverride>> | undefined): Registry<ToolEntry> {
  return new Registry<ToolEntry>("tool", (def, plugin, held) => checkTool(def, held) ?? toolEntry(def as ToolDefinition, plugin, findOverride(overrides(), (def as ToolDefinition).name)));
}

/**
 * A z.object's JSON Schema, converted (and frozen) when first read: most commands (`agent tools`,
 * `agent call`) never read the schemas of the built-in tools, and converting them costs ~5 ms of
 * start-up (bench/startup.mjs). Converting a z.object cannot fail with the options zodToJsonSchema
 * uses (what JSON Schema cannot say becomes `{}`); should it ever, the tool still gets an object schema.
 */
function lazyJsonSchema(schema: NonNullable<ToolDefinition["input"]>): () => JsonSchema {
  let json: JsonSchema | undefined;
  return () => {
    if (!json) {
      try {
        json = zodToJsonSchema(schema);
      } catch {
        json = { type: "object" };
      }
      json = freezeCopy(json);
    }
    return json;
  };
}

function zodType(schema: unknown): unknown {
  return (schema as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type;
}

/** A checked tool's entry; `override` is its config (`tools.overrides`). */
export function toolEntry(def: ToolDefinition, plugin: string, override: ToolOverride | undefined): ToolEntry | Rejection {
  let schema: () => JsonSchema;
  let validator: ToolEntry["validator"];
  const zod = def.input !== undefined;
  if (zod && zodType(def.input) === "object") {
    schema = lazyJsonSchema(def.input!);
    validator = zodValidator(def.input!);
  } else if (zod) {
    // Not a plain z.object (a pipe, an optional, …): converted now, to refuse what is not an object.
    let converted: JsonSchema;
    try {
      converted = zodToJsonSchema(def.input!);
    } catch (err) {
      return { name: def.name, reason: `input schema cannot be expressed as JSON Schema: ${(err as Error).message}` };
    }
    if (converted.type !== "object") return { name: def.name, reason: `input must be a z.object(...), got a schema of type ${JSON.stringify(converted.type)}` };
    const frozen = freezeCopy(converted);
    schema = () => frozen;
    validator = zodValidator(def.input!);
  } else {
    // The registry keeps its own copy: the plugin changing its object later changes nothing here.
    const inputSchema = freezeCopy(def.inputSchema!);
    schema = () => inputSchema;
    validator = jsonSchemaValidator(inputSchema, def.schemaDialect);
  }
  const risk: Risk = override?.risk ?? def.risk ?? "execute";
  const source = def.source ?? plugin;
  const timeoutMs = override?.timeoutMs ?? def.timeoutMs;
  const maxOutputBytes = override?.maxOutputBytes ?? def.maxOutputBytes;
  const view: RegisteredTool = Object.freeze({
    name: def.name,
    description: def.description,
    risk,
    source,
    plugin,
    // The registry's frozen copy (a zod tool's converted on first read).
    get inputSchema() {
      return schema();
    },
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
    ...(def.meta !== undefined ? { meta: freezeCopy(def.meta) } : {}),
    ...(def.aliases?.length ? { aliases: Object.freeze([...def.aliases]) } : {}),
    ...(def.deferLoading === true ? { deferLoading: true } : {}),
  });
  return { name: def.name, plugin, source, view, risk, timeoutMs, maxOutputBytes, definition: def, validator, zod, callsTools: def.callsTools !== false };
}

/**
 * The entry builder of a kind whose view is a frozen copy of its definition's data: `keys` in the view's
 * order (`source`: the definition's, else the plugin's name), undefined ones left out, lists and `meta` copied.
 */
function dataEntry<D extends { name: string; source?: string }, V>(keys: readonly (keyof D | "source" | "plugin")[]) {
  return (d: D, plugin: string): Entry<V> & { definition: D } => {
    const source = d.source ?? plugin;
    const view: Record<PropertyKey, unknown> = {};
    for (const k of keys) {
      const v = k === "source" ? source : k === "plugin" ? plugin : d[k as keyof D];
      if (v !== undefined) view[k] = Array.isArray(v) ? Object.freeze([...v]) : k === "meta" ? freezeCopy(v) : v;
    }
    // Exactly the view type's fields, read from the checked definition.
    return { name: d.name, plugin, source, view: Object.freeze(view) as V, definition: d };
  };
}

export const commandEntry = dataEntry<CommandDefinition, RegisteredCommand>(["name", "description", "argumentHint", "source", "plugin"]);
export const skillEntry = dataEntry<SkillDefinition, RegisteredSkill>(["name", "description", "content", "path", "source", "plugin", "meta"]);
/** A checked agent's entry: a frozen copy of the definition (it is all data), with its source and plugin. */
export const agentEntry = dataEntry<AgentDefinition, RegisteredAgent>(["name", "description", "prompt", "tools", "disallowedTools", "model", "permissionMode", "maxTurns", "skills", "path", "meta", "source", "plugin"]);

export function providerEntry(p: ModelProvider, plugin: string): ProviderEntry {
  // A view that shares the provider's methods: the registry's entry cannot be swapped by the plugin.
  const view = Object.freeze(Object.assign(Object.create(p) as ModelProvider, { name: p.name, plugin }));
  return { name: p.name, plugin, source: plugin, view, provider: p };
}
