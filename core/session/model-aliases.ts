/**
 * Model aliases: a short name for a `provider:model` reference, usable wherever a model is chosen
 * (`--model`, `AGENT_MODEL`, config `model`, `/model`). Built-in ones follow the names the bundled SDKs
 * list as current (`@anthropic-ai/sdk`'s `Model`, `openai`'s `ChatModel`; tests/core/model-names.test.ts
 * checks them against those lists and the Anthropic SDK's deprecations); config `modelAliases` adds or
 * replaces aliases.
 */
import { closestNames } from "../../kit/text/suggest.js";

export const BUILTIN_MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: "anthropic:claude-sonnet-5-5",
  opus: "anthropic:claude-opus-5-5",
  haiku: "anthropic:claude-haiku-5-5",
  gpt: "openai:gpt-5.4",
  "gpt-mini": "openai:gpt-5.1-mini",
});

/** An alias's name: what may stand where `provider:model` does (no colon). */
export const MODEL_ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function modelAliases(configured?: Readonly<Record<string, string>>): Record<string, string> {
  return { ...BUILTIN_MODEL_ALIASES, ...configured };
}

/**
 * `provider:model` for a reference that is either that already or an alias. Undefined for a name that
 * is neither; `unknownAliasMessage` says so.
 */
export function expandModelAlias(ref: string, configured?: Readonly<Record<string, string>>): string | undefined {
  if (ref.includes(":")) return ref;
  const aliases = modelAliases(configured);
  return Object.hasOwn(aliases, ref) ? aliases[ref] : undefined;
}

/** Why `ref` names no model: neither `provider:model` nor a known alias (with the closest alias). */
export function aliasProblem(ref: string, configured?: Readonly<Record<string, string>>): string {
  const names = Object.keys(modelAliases(configured));
  const near = closestNames(ref, names);
  return `"${ref}" is neither provider:model (e.g. anthropic:claude-sonnet-5-5) nor a model alias (${names.join(", ")})${near.length ? `; did you mean "${near[0]}"?` : ""}`;
}

export function unknownAliasMessage(ref: string, configured?: Readonly<Record<string, string>>): string {
  return `Unknown model: ${aliasProblem(ref, configured)}`;
}
