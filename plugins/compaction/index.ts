/**
 * Context management and compaction. It knows the window of the model in use (config `contextWindow`, else
 * what the providers declare) and estimates each request's size, learning from the reported usage; near the
 * window (config `compaction`), refused as too long, or asked (`/compact`, `session.compact()`), it has the
 * kernel compact (`preCompact` may block), and as the `compact` hook's handler it shortens oversized tool
 * results and summarises the older turns. Without it a host never compacts. Written against the public API.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { compactMessages } from "./compact.js";
import { ContextManager } from "./context.js";

export default definePlugin({
  name: "compaction",
  setup(ctx: PluginContext) {
    const context = new ContextManager(ctx.host);
    ctx.hooks.fitContext.tap("compaction", (point) => context.fit(point));
    ctx.hooks.modelError.tap("compaction", (failure) => context.failed(failure));
    ctx.hooks.compactAsked.tap("compaction", (point) => context.asked(point));
    ctx.hooks.compact.tap("compaction", (request) => compactMessages(request));
    // The provider's count of the last request corrects the estimate.
    ctx.hooks.event.tap({ name: "compaction", types: ["usage"] }, (e) => {
      if (e.type === "usage") context.estimator.reported(e.inputTokens);
    });
  },
});
