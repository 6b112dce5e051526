/**
 * The context-window lookup as a host with the built-in providers has it: the kernel's `contextWindowFor`
 * over the families the `openai` and `anthropic` providers declare (plugins/<name>/models.ts).
 */
import type { ModelProvider } from "../../core/index.js";
import { contextWindowFor as lookUp } from "../../plugins/compaction/context-window.js";
import { ANTHROPIC_CONTEXT_WINDOWS } from "../../plugins/anthropic/models.js";
import { OPENAI_CONTEXT_WINDOWS } from "../../plugins/openai/models.js";

const declaring = (name: string, contextWindows: ModelProvider["contextWindows"]): ModelProvider => ({ name, contextWindows, stream: async function* () {} });
const BUILTIN: ModelProvider[] = [declaring("openai", OPENAI_CONTEXT_WINDOWS), declaring("anthropic", ANTHROPIC_CONTEXT_WINDOWS)];

export function contextWindowFor(ref: string, configured?: number): ReturnType<typeof lookUp> {
  return lookUp(ref, configured, BUILTIN);
}
