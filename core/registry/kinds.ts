/**
 * The registration kinds, declared once, in the order their register hooks run (providers first: a tool
 * or an agent may name a model). The key is the kind's singular name; its plural (`<kind>s`) names the
 * plugin object's array, `ctx.<plural>`, `host.<plural>`, the registry and the status count, and its
 * register hook is `register<Plural>`. Everything else is derived from `KINDS`: the register hooks'
 * adapters (hook-adapters.ts), the registries and registrars (host-registrars.ts), the plugin object's
 * arrays and their tapping (plugin-driver.ts), `ctx.*` and `host.*` (list/get of the registry's views;
 * tools and commands add `call`/`run`), the running of the register hooks (host.ts) and the counts of
 * `agent plugins`. The register entries of the hook table (hooks.ts) are written out, for their doc
 * comments, and checked against `KINDS` at compile time.
 * Adding a kind is one entry here, its hook entry, plus its own code (definition and view types, check,
 * entry builder, registrar interface).
 */
import type { ModelProvider } from "../loop/model.js";
import { baseRegistrar, KindSpec, type BaseRegistrar, type KindEnv, type RegistrarParts } from "./kind-entry.js";
import type { AgentRegistrar, CommandRegistrar, ProviderRegistrar, SkillRegistrar, ToolRegistrar } from "./registrar-types.js";
import {
  agentEntry,
  commandEntry,
  findOverride,
  providerEntry,
  Registry,
  skillEntry,
  type Entry,
  toolEntry,
  type AgentEntry,
  type CommandEntry,
  type ProviderEntry,
  type SkillEntry,
  type ToolEntry,
} from "./registry.js";
import { checkAgent, checkCommand, checkProvider, checkSkill, checkTool } from "./registry-checks.js";
import type { AgentDefinition, CommandDefinition, SkillDefinition, ToolDefinition } from "../types.js";

/** @internal The declaration every part of the registration surface is derived from. */
export const KINDS = Object.freeze({
  /** Model providers (`provider:model` in config and runs). */
  provider: new KindSpec<ModelProvider, ProviderEntry, ProviderRegistrar>({ check: checkProvider, entry: providerEntry, registrar: baseRegistrar }),
  /** Tools the model calls through the gate; a plugin may also add sources that load tools on demand. */
  tool: new KindSpec<ToolDefinition, ToolEntry, ToolRegistrar>({
    check: checkTool,
    entry: (def, plugin, env) => toolEntry(def, plugin, findOverride(env.config.tools?.overrides, def.name)),
    registrar: toolRegistrar,
  }),
  /** Slash commands. */
  command: new KindSpec<CommandDefinition, CommandEntry, CommandRegistrar>({ check: checkCommand, entry: commandEntry, registrar: baseRegistrar }),
  /** Skills (SKILL.md rules). */
  skill: new KindSpec<SkillDefinition, SkillEntry, SkillRegistrar>({ check: checkSkill, entry: skillEntry, registrar: baseRegistrar }),
  /** Subagent definitions (Claude Code's subagent shape); run by the `task` tool of a plugin. Two plugins' `code-reviewer`: the first wins. */
  agent: new KindSpec<AgentDefinition, AgentEntry, AgentRegistrar>({ check: checkAgent, entry: agentEntry, registrar: baseRegistrar, clashIsWarning: true }),
});

type Kinds = typeof KINDS;
export type KindName = keyof Kinds;
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

/** `tool` → `tools`: the plugin array, `ctx.*`, `host.*`, the registry and the status count. */
export type PluralOf<K extends KindName> = `${K}s`;
/** `tool` → `registerTools`. */
export type RegisterHookOf<K extends KindName> = `register${Capitalize<PluralOf<K>>}`;
export type KindPlural = PluralOf<KindName>;
export type RegisterHookName = RegisterHookOf<KindName>;

export type DefinitionOf<K extends KindName> = Kinds[K]["types"]["def"];
export type EntryOf<K extends KindName> = Kinds[K]["types"]["entry"];
export type ViewOf<K extends KindName> = Kinds[K]["types"]["view"];
export type RegistrarOf<K extends KindName> = Kinds[K]["types"]["registrar"];

export function pluralOf<K extends KindName>(kind: K): PluralOf<K> {
  return `${kind}s`;
}

export function registerHookOf<K extends KindName>(kind: K): RegisterHookOf<K> {
  const plural = pluralOf(kind);
  // The first letter upper-cased is what `Capitalize` says; the compiler cannot follow a string operation.
  return `register${plural[0]!.toUpperCase()}${plural.slice(1)}` as RegisterHookOf<K>;
}

/** One registry per kind, under its plural. */
export type Registries = { readonly [K in KindName as PluralOf<K>]: Registry<EntryOf<K>> };
/** A plugin's registrars (`ctx.tools`, …, and what each register hook is handed). */
export type KindRegistrars = { readonly [K in KindName as PluralOf<K>]: RegistrarOf<K> };
/** The plugin object's arrays of definitions (`tools: [...]`, …), registered in the kind's register hook. */
export type KindArrays = { [K in KindName as PluralOf<K>]?: DefinitionOf<K>[] };
/** A registry as `host.<plural>` shows it: frozen views. */
export interface KindListing<V> {
  list(): V[];
  get(name: string): V | undefined;
}
export type KindListings = { readonly [K in KindName as PluralOf<K>]: KindListing<ViewOf<K>> };
/** How many of each kind a plugin registered (`agent plugins`). */
export type KindCounts = { readonly [K in KindName as PluralOf<K>]: number };

/** One value per kind, under its plural (or another name of the kind: `registerHookOf`). */
export function perKind<T>(make: (kind: KindName) => unknown, key: (kind: KindName) => string = pluralOf): T {
  // Object.fromEntries forgets which key holds which value; each was made from its own kind.
  return Object.fromEntries(KIND_NAMES.map((kind) => [key(kind), make(kind)])) as T;
}

/** A new registry for every kind. */
export function createRegistries(env: KindEnv): Registries {
  return Object.freeze(perKind<Registries>((kind) => kindRegistry(kind, env)));
}

function kindRegistry<K extends KindName>(kind: K, env: KindEnv): Registry<EntryOf<K>> {
  const spec: KindSpec<DefinitionOf<K>, EntryOf<K>, RegistrarOf<K>> = KINDS[kind];
  // The check has just accepted `def` as this kind's definition.
  return new Registry<EntryOf<K>>(kind, (def, plugin, held) => spec.check(def, held) ?? spec.entry(def as DefinitionOf<K>, plugin, env));
}

/** `host.<plural>` for every kind: list and get the registry's frozen views. */
export function kindListings(registries: Registries): KindListings {
  return perKind((kind) => listingOf(registries[pluralOf(kind)]));
}

/** Copies of the listings' `list` and `get`, frozen (what a plugin's view of the host holds). */
export function copyListings(from: KindListings): KindListings {
  return perKind((kind) => Object.freeze({ list: from[pluralOf(kind)].list, get: from[pluralOf(kind)].get }));
}

function listingOf(registry: Registry<Entry<unknown>>): KindListing<unknown> {
  return Object.freeze({ list: () => registry.views(), get: (name: string) => registry.get(name)?.view });
}

/** What `plugin` registered, counted per kind; all zero for a plugin that is not loaded. */
export function kindCounts(registries: Registries | undefined, plugin: string): KindCounts {
  return perKind((kind) => (registries ? registries[pluralOf(kind)].count(plugin) : 0));
}

/** Tools' registrar: the base one plus sources of tools that load on demand (MCP servers). */
function toolRegistrar(base: BaseRegistrar<ToolDefinition>, plugin: string, parts: RegistrarParts): ToolRegistrar {
  return Object.freeze({
    ...base,
    addSource(source: unknown): boolean {
      if (parts.failed.has(plugin)) return false;
      const refused = parts.sources.add(plugin, source);
      if (refused) parts.reject(plugin, "tool", { name: String((source as { name?: unknown } | null)?.name ?? "(unnamed)"), reason: refused });
      return !refused;
    },
    removeSource: (name: string) => parts.sources.remove(plugin, name),
  });
}
