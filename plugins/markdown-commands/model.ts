/**
 * A command's `model:` frontmatter as the model of the turn its prompt starts, as Claude Code applies it.
 * Claude Code writes aliases (`haiku`, `sonnet`, `opus`) and Anthropic ids (`claude-3-5-haiku-20241022`);
 * such a model is taken when it resolves here and is served by the session model's own provider (a user
 * on another provider keeps the session's model, told once, rather than a run that fails on a missing
 * key). An explicit `provider:model` is taken as written. `inherit` is the session's model.
 */
import { parseModelRef, type PluginHost } from "../../core/index.js";
import { resolveModel } from "../../core/embed.js";

export type CommandModel = { model: string } | { skipped: string } | undefined;

export function commandModel(written: string | undefined, host: PluginHost): CommandModel {
  const value = written?.trim();
  if (!value || value === "inherit") return undefined;
  // Claude Code's full ids name Anthropic's models without a provider.
  const candidates = !value.includes(":") && value.startsWith("claude-") ? [value, `anthropic:${value}`] : [value];
  for (const candidate of candidates) {
    let ref: string;
    try {
      ref = resolveModel(host, candidate).ref;
    } catch {
      continue;
    }
    const session = host.session.model ? parseModelRef(resolveRef(host, host.session.model)) : undefined;
    const provider = parseModelRef(ref)?.provider;
    if (value.includes(":") || !session || session.provider === provider) return { model: ref };
    return { skipped: `frontmatter model "${value}" is ${ref}, another provider than the session's (${session.provider}); the session's model answers` };
  }
  return { skipped: `frontmatter model "${value}" is not a model known here; the session's model answers` };
}

function resolveRef(host: PluginHost, model: string): string {
  try {
    return resolveModel(host, model).ref;
  } catch {
    return model;
  }
}
