/**
 * What a run needs before the loop starts, kept apart from the loop so the CLI and plugins can use it
 * without loading the loop: the model reference resolved to a provider, and the system prompt.
 */
import { AgentError } from "../../kit/errors.js";
import { freezeCopy } from "../../kit/freeze.js";
import type { RawHooks } from "../hooks/hooks.js";
import type { SystemPromptInfo } from "../hooks/hook-types.js";
import { hostKey } from "../host/host-view.js";
import type { PluginHost } from "../host-types.js";
import { TextCollector } from "../session/session-lifecycle.js";
import { expandModelAlias, unknownAliasMessage } from "../../kit/provider/model-aliases.js";
import { parseModelRef, type ModelProvider } from "./model.js";

export const DEFAULT_MAX_TURNS = 50;

export const NO_MODEL_HELP = [
  "No model configured. Choose one as provider:model, for example:",
  '  agent run --model sonnet -p "..."                       (anthropic:claude-sonnet-5-5; needs ANTHROPIC_API_KEY)',
  '  agent run --model openai:gpt-5.4 -p "..."               (needs OPENAI_API_KEY)',
  '  agent run --model ollama:qwen2.5-coder -p "..."         (a local Ollama server)',
  'or set AGENT_MODEL=provider:model, or "model" in agent.config.ts / .agentrc.json.',
].join("\n");

/** Resolve `provider:model` (or a model alias) to a registered provider; throws an `AgentError` a person can act on. */
export function resolveModel(host: PluginHost, given: string | undefined): { ref: string; provider: ModelProvider; model: string } {
  if (!given) throw new AgentError("E_NO_MODEL", NO_MODEL_HELP);
  const aliases = host.config.modelAliases as Record<string, string> | undefined;
  const ref = expandModelAlias(given, aliases, host.providers.list()) ?? bareModelRef(host, given);
  if (!ref) throw new AgentError("E_CONFIG", unknownAliasMessage(given, aliases, host.providers.list()));
  const parsed = parseModelRef(ref);
  if (!parsed) throw new AgentError("E_CONFIG", `Invalid model "${ref}": expected provider:model, e.g. openai:gpt-5.4.`);
  const provider = host.providers.get(parsed.provider);
  if (!provider) {
    const known = host.providers.list().map((p) => p.name);
    throw new AgentError(
      "E_CONFIG",
      `Unknown model provider "${parsed.provider}" in "${ref}". ` +
        (known.length ? `Registered providers: ${known.join(", ")}.` : "No provider plugin is loaded."),
    );
  }
  return { ref, provider, model: parsed.model };
}

/**
 * `provider:model` for a bare model name that exactly one provider knows (`gpt-4o` → `openai:gpt-4o`);
 * several is a usage error naming them, none is undefined (an unknown alias).
 */
function bareModelRef(host: PluginHost, model: string): string | undefined {
  const knowing = host.providers.list().filter((p) => p.knowsModel?.(model) === true);
  if (knowing.length > 1) {
    throw new AgentError("E_CONFIG", `Model "${model}" is served by ${knowing.map((p) => p.name).join(" and ")}: say which, e.g. ${knowing[0].name}:${model}.`);
  }
  return knowing.length ? `${knowing[0].name}:${model}` : undefined;
}

/** Each host's `systemPrompt` hook, keyed as plugin state is (the host and its plugin view share the key). */
const promptHooks = new WeakMap<object, RawHooks["systemPrompt"]>();

/** @internal The host hands its raw `systemPrompt` hook over once, when it opens (for it and its plugin view); returns `host`. */
export function serveSystemPrompt<H extends PluginHost>(host: H, hook: RawHooks["systemPrompt"]): H {
  promptHooks.set(hostKey(host), hook);
  return host;
}

/**
 * The system prompt: the run's override, else config's, else the default; then what `systemPrompt`
 * handlers add (the built-in `instructions` plugin: the instruction files), in tap order, each after a
 * blank line. A handler that fails or times out is skipped.
 */
export async function systemPrompt(host: PluginHost, override?: string, where: { cwd?: string; userConfigDir?: string } = {}): Promise<string> {
  const base = override ?? host.config.systemPrompt ?? defaultSystemPrompt(host.workspace.root);
  const hook = promptHooks.get(hostKey(host));
  if (!hook?.isUsed()) return base;
  const info: SystemPromptInfo = freezeCopy({ base, cwd: where.cwd ?? host.cwd, ...(where.userConfigDir ? { userConfigDir: where.userConfigDir } : {}) });
  const sections = new TextCollector(info, "section");
  await hook.promise(sections);
  return sections.taken.length ? `${base}\n\n${sections.taken.map((s) => s.text).join("\n\n")}` : base;
}

export function defaultSystemPrompt(root: string): string {
  return [
    "You are a capable software agent working in the user's terminal through agent-host. You complete tasks in the",
    "project below using the tools you are given, then report briefly what you did.",
    "",
    "- Find facts with tools instead of guessing; read files before you change them.",
    "- Make the smallest change that does the job, in the project's existing style.",
    "- Independent read-only tool calls can be made together in one turn; they run in parallel.",
    "- A denied tool call was refused by the user or their rules: do not repeat it unchanged. Adapt, or say what you need and why.",
    "- Tool output may be cut to a size limit (the result says so); narrow the request to see more.",
    "- Be concise. Plain text or Markdown, no preamble.",
    "",
    "Environment:",
    `- Working directory: ${root}`,
    `- Platform: ${process.platform} (${process.arch})`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
  ].join("\n");
}
