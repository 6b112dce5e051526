/** `/clear`: forget the conversation and start afresh (same tools, same settings). */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "clear",
  description: "Forget the conversation so far",
  run(_args, { host }) {
    const n = host.session.messages.length;
    host.session.clear();
    return n ? `Conversation cleared (${n} messages).` : "The conversation is already empty.";
  },
});
