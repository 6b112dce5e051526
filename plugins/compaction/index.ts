/**
 * Compaction: when the kernel finds the conversation near the context window (config `compaction`,
 * `contextWindow`), refused as too long, or asked (`/compact`, `session.compact()`), and `preCompact`
 * let it, this plugin shortens oversized tool results and summarises the older turns (the `compact`
 * hook). Without it a host never compacts. Written against the public API.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { compactMessages } from "./compact.js";

export default definePlugin({
  name: "compaction",
  setup(ctx: PluginContext) {
    ctx.hooks.compact.tap("compaction", (request) => compactMessages(request));
  },
});
