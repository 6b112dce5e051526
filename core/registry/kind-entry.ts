/**
 * The kind of entry the registration-kinds table (kinds.ts) is declared with, as hook-entry.ts is for the
 * hook table. An entry says, once, what a kind's definition is (`Def`), what its registry holds (`E`, whose
 * `view` is what listings show), what a plugin's registrar for it looks like (`Registrar`), the gate's check
 * and how an accepted definition becomes an entry. Every part is a required constructor option: a kind that
 * forgets one does not compile.
 */
import type { AgentConfig } from "../config/config-schema.js";
import type { Entry } from "./registry.js";
import type { Holders, Rejection } from "./registry-checks.js";
import type { ToolSources } from "./tool-sources.js";
import type { Registrar as BaseRegistrar } from "./registrar-types.js";

/** What an entry builder may read of the host: the resolved config (tools take their overrides from it). */
export interface KindEnv {
  readonly config: Readonly<AgentConfig>;
}

/** Every registrar's core: `add` passes the gate (false, reported, when refused); `remove` only what the plugin added. */
export type { Registrar as BaseRegistrar } from "./registrar-types.js";

/** What a kind's registrar may add to the base one (tools: their sources): the host's parts it may use. */
export interface RegistrarParts {
  readonly sources: ToolSources;
  /** Plugins whose setup failed: they may not register anything more. */
  readonly failed: ReadonlySet<string>;
  reject(plugin: string, what: string, r: Rejection): void;
}

export interface KindOptions<Def, E extends Entry<unknown>, R> {
  /** The registration gate's check: why `def` is refused, or undefined. */
  check(def: unknown, held: Holders): Rejection | undefined;
  /** The entry for a definition the check accepted (or a late refusal, e.g. a schema that cannot be converted). */
  entry(def: Def, plugin: string, env: KindEnv): E | Rejection;
  /** The plugin's registrar, from the base one (`base` as it is, for most kinds). */
  registrar(base: BaseRegistrar<Def>, plugin: string, parts: RegistrarParts): R;
  /** A name another plugin registered first is a warning (the first one wins), not a failed registration. */
  clashIsWarning?: boolean;
}

/** One registration kind. `types` exists only for the compiler: it carries the kind's types. */
export class KindSpec<Def, E extends Entry<unknown>, R extends BaseRegistrar<Def>> {
  declare readonly types: { def: Def; entry: E; view: E["view"]; registrar: R };
  readonly check: KindOptions<Def, E, R>["check"];
  readonly entry: KindOptions<Def, E, R>["entry"];
  readonly registrar: KindOptions<Def, E, R>["registrar"];
  readonly clashIsWarning: boolean;
  constructor(options: KindOptions<Def, E, R>) {
    this.check = options.check;
    this.entry = options.entry;
    this.registrar = options.registrar;
    this.clashIsWarning = options.clashIsWarning === true;
  }
}

/** The registrar as the base one is: for kinds whose registrar is only `add` and `remove`. */
export function baseRegistrar<Def>(base: BaseRegistrar<Def>): BaseRegistrar<Def> {
  return base;
}
