/**
 * Model aliases: a short name for `provider:model` wherever a model is chosen (`--model`, `AGENT_MODEL`, config
 * `model`, `/model`). Providers declare theirs (`ModelProvider.modelAliases`); config `modelAliases` adds or replaces.
 * Pure functions of the tables: resolving a model reference to a provider is the kernel's (`resolveModel`).
 */
import { closestNames } from "../text/suggest.js";
import { ConfigError } from "../errors.js";

/** What of a provider (`ModelProvider`) the aliases need. */
type AliasProvider = { name: string; modelAliases?: Readonly<Record<string, string>> };

/** An alias's name: what may stand where `provider:model` does (no colon). */
export const MODEL_ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The providers' aliases as `provider:model` (the first provider declaring a name has it), then config's over them. */
export function modelAliases(configured?: Readonly<Record<string, string>>, providers: readonly AliasProvider[] = []): Record<string, string> {
  const declared: Record<string, string> = {};
  for (const p of providers) {
    for (const [alias, model] of Object.entries(p.modelAliases ?? {})) if (!Object.hasOwn(declared, alias)) declared[alias] = `${p.name}:${model}`;
  }
  return { ...declared, ...configured };
}

/**
 * `provider:model` for a reference that is either that already or an alias. Undefined for a name that
 * is neither; `unknownAliasMessage` says so.
 */
export function expandModelAlias(ref: string, configured?: Readonly<Record<string, string>>, providers: readonly AliasProvider[] = []): string | undefined {
  if (ref.includes(":")) return ref;
  const aliases = modelAliases(configured, providers);
  return Object.hasOwn(aliases, ref) ? aliases[ref] : undefined;
}

/** Why `ref` names no model: neither `provider:model` nor a known alias (with the closest alias). */
export function aliasProblem(ref: string, configured?: Readonly<Record<string, string>>, providers: readonly AliasProvider[] = []): string {
  const names = Object.keys(modelAliases(configured, providers));
  const near = closestNames(ref, names);
  return `"${ref}" is neither provider:model (e.g. anthropic:claude-sonnet-5-5) nor a model alias (${names.join(", ")})${near.length ? `; did you mean "${near[0]}"?` : ""}`;
}

export function unknownAliasMessage(ref: string, configured?: Readonly<Record<string, string>>, providers: readonly AliasProvider[] = []): string {
  return `Unknown model: ${aliasProblem(ref, configured, providers)}`;
}

/** Config `model` that no registered provider's alias explains: a `ConfigError` naming its file (none without providers). */
export function configuredModelError(config: { model?: string; modelAliases?: Record<string, string> }, origins: readonly { key: string; file: string }[], providers: readonly AliasProvider[]): ConfigError | undefined {
  if (!config.model || !providers.length || expandModelAlias(config.model, config.modelAliases, providers)) return undefined;
  const from = [...origins].reverse().find((o) => o.key === "model")?.file ?? "config";
  return new ConfigError(from, [{ path: "model", message: aliasProblem(config.model, config.modelAliases, providers) }]);
}
