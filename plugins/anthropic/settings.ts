/**
 * Where an Anthropic provider gets its endpoint and key: config `providers.<name>`, then the
 * environment (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL` for `anthropic`).
 * Resolved on every request.
 */
import { ModelError, parseProviderConfig, z } from "../../core/index.js";

export const AnthropicProviderConfigSchema = z.looseObject({
  /** Marks a `providers.<name>` entry as an Anthropic-compatible endpoint registered under `<name>`. */
  type: z.literal("anthropic").optional(),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  /** Environment variable holding the key (default ANTHROPIC_API_KEY for `anthropic`). */
  apiKeyEnv: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Output token limit per answer; the Messages API requires one (default 8192). */
  maxTokens: z.number().int().positive().optional(),
  /** Mark the system prompt and the latest message as cacheable (default true). */
  promptCaching: z.boolean().optional(),
  /** Time to wait for the server to start answering, in ms (default 10 minutes). */
  timeoutMs: z.number().int().positive().optional(),
});

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const DEFAULT_MAX_TOKENS = 8192;

export interface ResolvedSettings {
  name: string;
  baseURL: string;
  /** Exactly one of apiKey / authToken is set. */
  apiKey?: string;
  authToken?: string;
  keyHint: string;
  headers?: Record<string, string>;
  maxTokens: number;
  promptCaching: boolean;
  timeoutMs?: number;
}

/** Sent to custom endpoints when no key is set: the SDK insists on a credential. */
const PLACEHOLDER_KEY = "not-needed";

export function resolveSettings(name: string, raw: unknown, env: NodeJS.ProcessEnv = process.env): ResolvedSettings {
  const config = parseProviderConfig(AnthropicProviderConfigSchema, name, raw);
  const isDefault = name === "anthropic";
  const baseURL = (config.baseURL ?? (isDefault ? env.ANTHROPIC_BASE_URL || undefined : undefined) ?? (isDefault ? ANTHROPIC_DEFAULT_BASE_URL : "")).replace(/\/+$/, "");
  if (!baseURL) {
    throw new ModelError("E_MODEL_CONFIG", `Provider ${name} has no base URL: set providers.${name}.baseURL in your agent config.`, { provider: name });
  }
  const keyEnv = config.apiKeyEnv ?? (isDefault ? "ANTHROPIC_API_KEY" : undefined);
  const keyHint = keyEnv ? `${keyEnv} (or providers.${name}.apiKey in your agent config)` : `providers.${name}.apiKey or providers.${name}.apiKeyEnv in your agent config`;
  const apiKey = config.apiKey ?? (keyEnv ? env[keyEnv] || undefined : undefined);
  const authToken = !apiKey && isDefault ? env.ANTHROPIC_AUTH_TOKEN || undefined : undefined;
  if (!apiKey && !authToken && baseURL === ANTHROPIC_DEFAULT_BASE_URL) {
    throw new ModelError("E_MODEL_NO_KEY", `No API key for ${name}: set ${keyHint}.`, { provider: name });
  }
  return {
    name,
    baseURL,
    ...(authToken ? { authToken } : { apiKey: apiKey ?? PLACEHOLDER_KEY }),
    keyHint,
    headers: config.headers,
    maxTokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    promptCaching: config.promptCaching ?? true,
    timeoutMs: config.timeoutMs,
  };
}
