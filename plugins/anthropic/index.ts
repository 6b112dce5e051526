/**
 * Built-in plugin: the Anthropic Messages API as a model provider (`anthropic:<model>`), plus every
 * `providers.<name>` config entry with `type: "anthropic"` (gateways, proxies).
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { ANTHROPIC_CONTEXT_WINDOWS, ANTHROPIC_MODEL_ALIASES } from "./models.js";
import { createAnthropicProvider } from "./provider.js";

export default definePlugin(() => {
  let ctx: PluginContext | undefined;
  const configFor = (name: string) => () => ctx?.config.providers?.[name];
  return {
    name: "anthropic",
    setup(c) {
      ctx = c;
    },
    registerProviders(providers) {
      providers.add(createAnthropicProvider({ name: "anthropic", description: "Anthropic Messages API (ANTHROPIC_API_KEY)", config: configFor("anthropic"), knows: /^claude-/, models: { modelAliases: ANTHROPIC_MODEL_ALIASES, contextWindows: ANTHROPIC_CONTEXT_WINDOWS } }));
      for (const [name, entry] of Object.entries(ctx?.config.providers ?? {})) {
        if (entry.type !== "anthropic" || name === "anthropic") continue;
        const where = typeof entry.baseURL === "string" ? entry.baseURL : "no baseURL set";
        providers.add(createAnthropicProvider({ name, description: `Anthropic-compatible endpoint (${where})`, config: configFor(name) }));
      }
    },
  };
});
