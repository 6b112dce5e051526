/**
 * Where an OpenAI-compatible provider gets its endpoint and key: config `providers.<name>`, then
 * the environment, then the preset for well-known servers. Resolved on every request, so a changed
 * environment or config applies without restarting the host.
 */
import { ModelError, parseProviderConfig, z } from "../../core/index.js";

export const OpenAIProviderConfigSchema = z.looseObject({
  /** Marks a `providers.<name>` entry as an OpenAI-compatible server registered under `<name>`. */
  type: z.literal("openai").optional(),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  /** Environment variable holding the key (default per preset, e.g. OPENAI_API_KEY). */
  apiKeyEnv: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  organization: z.string().optional(),
  project: z.string().optional(),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Ask for token usage in the stream (`stream_options.include_usage`); turn off for servers that reject it. */
  streamUsage: z.boolean().optional(),
  /** Time to wait for the server to start answering, in ms (default 10 minutes). */
  timeoutMs: z.number().int().positive().optional(),
});
export type OpenAIProviderConfig = z.infer<typeof OpenAIProviderConfigSchema>;

export interface Preset {
  description: string;
  baseURL: string;
  /** Env var that overrides the base URL. */
  baseURLEnv?: string;
  apiKeyEnv?: string;
  /** A key is needed (local servers run without one). */
  keyRequired: boolean;
}

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Registered out of the box, so `ollama:qwen2.5-coder` works with no config at all. */
export const PRESETS: Record<string, Preset> = {
  openai: {
    description: "OpenAI Chat Completions, or any OpenAI-compatible server via OPENAI_BASE_URL",
    baseURL: OPENAI_DEFAULT_BASE_URL,
    baseURLEnv: "OPENAI_BASE_URL",
    apiKeyEnv: "OPENAI_API_KEY",
    keyRequired: true,
  },
  ollama: { description: "Ollama on this machine (OLLAMA_HOST honoured)", baseURL: "http://localhost:11434/v1", keyRequired: false },
  lmstudio: { description: "LM Studio's local server", baseURL: "http://localhost:1234/v1", keyRequired: false },
  vllm: { description: "vLLM's OpenAI-compatible server", baseURL: "http://localhost:8000/v1", apiKeyEnv: "VLLM_API_KEY", keyRequired: false },
  llamacpp: { description: "llama.cpp's llama-server", baseURL: "http://localhost:8080/v1", apiKeyEnv: "LLAMA_API_KEY", keyRequired: false },
  openrouter: { description: "OpenRouter", baseURL: "https://openrouter.ai/api/v1", apiKeyEnv: "OPENROUTER_API_KEY", keyRequired: true },
};

export interface ResolvedSettings {
  name: string;
  baseURL: string;
  apiKey: string;
  /** Where the key should come from, for error messages. */
  keyHint: string;
  /** The base URL is OpenAI's own API (it wants `max_completion_tokens`). */
  official: boolean;
  headers?: Record<string, string>;
  organization?: string;
  project?: string;
  maxTokens?: number;
  temperature?: number;
  streamUsage: boolean;
  timeoutMs?: number;
}

/** Sent when no key is needed: the SDK insists on one, local servers ignore it. */
const PLACEHOLDER_KEY = "not-needed";

export function resolveSettings(name: string, raw: unknown, env: NodeJS.ProcessEnv = process.env): ResolvedSettings {
  const config = parseProviderConfig(OpenAIProviderConfigSchema, name, raw);
  const preset: Preset = PRESETS[name] ?? { description: "", baseURL: "", keyRequired: false };
  const envBaseURL = preset.baseURLEnv ? env[preset.baseURLEnv] : name === "ollama" ? ollamaHostURL(env.OLLAMA_HOST) : undefined;
  const baseURL = (config.baseURL ?? (envBaseURL || undefined) ?? preset.baseURL).replace(/\/+$/, "");
  if (!baseURL) {
    throw new ModelError("E_MODEL_CONFIG", `Provider ${name} has no base URL: set providers.${name}.baseURL in your agent config.`, { provider: name });
  }
  const keyEnv = config.apiKeyEnv ?? preset.apiKeyEnv;
  const apiKey = config.apiKey ?? (keyEnv ? env[keyEnv] || undefined : undefined);
  const official = baseURL === OPENAI_DEFAULT_BASE_URL;
  const keyHint = keyEnv ? `${keyEnv} (or providers.${name}.apiKey in your agent config)` : `providers.${name}.apiKey or providers.${name}.apiKeyEnv in your agent config`;
  // A key is required for OpenAI itself and hosted services; a custom base URL usually means a local server.
  const keyRequired = name === "openai" ? official : preset.keyRequired;
  if (!apiKey && keyRequired) {
    throw new ModelError("E_MODEL_NO_KEY", `No API key for ${name}: set ${keyHint}.`, { provider: name });
  }
  return {
    name,
    baseURL,
    apiKey: apiKey ?? PLACEHOLDER_KEY,
    keyHint,
    official,
    headers: config.headers,
    organization: config.organization,
    project: config.project,
    maxTokens: config.maxTokens,
    temperature: config.temperature,
    streamUsage: config.streamUsage ?? true,
    timeoutMs: config.timeoutMs,
  };
}

/** `OLLAMA_HOST` is `host[:port]` or a URL; the OpenAI-compatible API lives under `/v1`. */
function ollamaHostURL(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const withScheme = /^https?:\/\//.test(host) ? host : `http://${host}`;
  const url = new URL(withScheme);
  if (!url.port && !/^https?:\/\/[^/]+:\d+/.test(withScheme)) url.port = "11434";
  return `${url.origin}/v1`;
}
