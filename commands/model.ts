/** `/model [provider:model | alias | list [provider]]`: show, switch or list models. */
import { defineCommand, parseModelRef, type PluginHost } from "../core/index.js";
import { expandModelAlias, modelAliases } from "../core/embed.js";

export default defineCommand({
  name: "model",
  description: "Show or switch the model; /model list shows what a provider offers",
  argumentHint: "[provider:model | alias | list [provider]]",
  async run(args, { host, signal }) {
    const [first, second] = args.trim().split(/\s+/).filter(Boolean);
    if (!first) return describe(host);
    if (first === "list") return list(host, second ?? parseModelRef(expandModelAlias(host.session.model ?? "", host.config.modelAliases as Record<string, string> | undefined, host.providers.list()) ?? "")?.provider, signal);
    const aliases = host.config.modelAliases as Record<string, string> | undefined;
    const expanded = expandModelAlias(first, aliases, host.providers.list());
    const ref = expanded ? parseModelRef(expanded) : undefined;
    if (!ref) return `"${first}" is not provider:model (e.g. openai:gpt-5.4) or an alias (${Object.keys(modelAliases(aliases, host.providers.list())).join(", ")}).`;
    if (!host.providers.get(ref.provider)) return `Unknown provider "${ref.provider}". Providers: ${host.providers.list().map((p) => p.name).join(", ")}.`;
    host.session.model = first;
    return `Model: ${first}${expanded !== first ? ` (${expanded})` : ""}`;
  },
});

function describe(host: PluginHost): string {
  const providers = host.providers.list().sort((a, b) => a.name.localeCompare(b.name));
  const width = Math.max(0, ...providers.map((p) => p.name.length));
  return [
    `Model: ${host.session.model ?? "(none; choose one with /model provider:model)"}`,
    "Providers:",
    ...providers.map((p) => `  ${p.name.padEnd(width)}  ${p.description ?? ""}`.trimEnd()),
    `Aliases: ${Object.entries(modelAliases(host.config.modelAliases as Record<string, string> | undefined, host.providers.list())).map(([a, r]) => `${a} (${r})`).join(", ")}`,
  ].join("\n");
}

async function list(host: PluginHost, providerName: string | undefined, signal: AbortSignal): Promise<string> {
  if (!providerName) return "Which provider? /model list <provider>";
  const provider = host.providers.get(providerName);
  if (!provider) return `Unknown provider "${providerName}".`;
  if (!provider.listModels) return `Provider ${providerName} cannot list its models.`;
  try {
    const ids = await provider.listModels({ signal });
    return ids.length ? ids.map((id) => `  ${providerName}:${id}`).join("\n") : `${providerName} lists no models.`;
  } catch (err) {
    return `Could not list models: ${(err as Error).message}`;
  }
}
