/**
 * Built-in plugin: OpenAI-compatible model providers (Chat Completions, streaming tool calls).
 * Registers `openai`, presets for well-known servers (ollama, lmstudio, vllm, llamacpp, openrouter),
 * and every `providers.<name>` config entry with `type: "openai"`.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { createOpenAIProvider } from "./provider.js";
import { OPENAI_CONTEXT_WINDOWS, OPENAI_MODEL_ALIASES } from "./models.js";
import { PRESETS } from "./settings.js";

/** OpenAI's own model names (`gpt-4o`, `o3`, `chatgpt-4o-latest`, `codex-mini-latest`): `--model gpt-4o` is openai's. */
const OPENAI_MODELS = /^(gpt-|chatgpt-|codex-|o\d)/;

export default definePlugin(() => {
  let ctx: PluginContext | undefined;
  const configFor = (name: string) => () => ctx?.config.providers?.[name];
  return {
    name: "openai",
    setup(c) {
      ctx = c;
    },
    registerProviders(providers) {
      for (const [name, preset] of Object.entries(PRESETS)) {
        const own = name === "openai";
        providers.add(createOpenAIProvider({ name, description: preset.description, config: configFor(name), knows: own ? OPENAI_MODELS : undefined, models: own ? { modelAliases: OPENAI_MODEL_ALIASES, contextWindows: OPENAI_CONTEXT_WINDOWS } : undefined }));
      }
      for (const [name, entry] of Object.entries(ctx?.config.providers ?? {})) {
        if (entry.type !== "openai" || name in PRESETS) continue;
        const where = typeof entry.baseURL === "string" ? entry.baseURL : "no baseURL set";
        providers.add(createOpenAIProvider({ name, description: `OpenAI-compatible server (${where})`, config: configFor(name) }));
      }
    },
  };
});
