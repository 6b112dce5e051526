/** `/model [provider:model | list [provider]]`: show, switch or list models. */
import { defineCommand, parseModelRef, type PluginHost } from "../core/index.js";

export default defineCommand({
  name: "model",
  description: "Show or switch the model; /model list shows what a provider offers",
  argumentHint: "[provider:model | list [provider]]",
  async run(args, { host, signal }) {
    const [first, second] = args.trim().split(/\s+/).filter(Boolean);
    if (!first) return describe(host);
    if (first === "list") return list(host, second ?? parseModelRef(host.session.model ?? "")?.provider, signal);
    const ref = parseModelRef(first);
    if (!ref) return `"${first}" is not provider:model (e.g. openai:gpt-4.1).`;
    if (!host.providers.get(ref.provider)) return `Unknown provider "${ref.provider}". Providers: ${host.providers.list().map((p) => p.name).join(", ")}.`;
    host.session.model = first;
    return `Model: ${first}`;
  },
});

function describe(host: PluginHost): string {
  const providers = host.providers.list().sort((a, b) => a.name.localeCompare(b.name));
  const width = Math.max(0, ...providers.map((p) => p.name.length));
  return [
    `Model: ${host.session.model ?? "(none; choose one with /model provider:model)"}`,
    "Providers:",
    ...providers.map((p) => `  ${p.name.padEnd(width)}  ${p.description ?? ""}`.trimEnd()),
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
