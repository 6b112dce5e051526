/** `/compact [focus]`: summarise the older turns now, keeping recent ones (and what `focus` names). */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "compact",
  description: "Summarise the conversation so far to free context; /compact <what to keep> focuses the summary",
  argumentHint: "[what the summary must keep]",
  async run(args, { host, signal }) {
    if (!host.session.messages.length) return "The conversation is empty: nothing to compact.";
    const before = host.session.messages.length;
    const r = await host.session.compact({ instructions: args.trim() || undefined, signal });
    if (!r.ok) return `Not compacted: ${r.reason}.`;
    const parts = [r.summarized ? `${r.summarized} of ${before} messages summarised` : "", r.shortened ? `${r.shortened} tool result${r.shortened === 1 ? "" : "s"} shortened` : ""].filter(Boolean);
    return `Compacted: ${parts.join(", ")}; about ${r.tokensBefore.toLocaleString("en-US")} → ${r.tokensAfter.toLocaleString("en-US")} tokens.`;
  },
});
