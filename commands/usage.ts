/** `/usage`: tokens used so far in this session. */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "usage",
  description: "Show the tokens used in this session",
  run(_args, { host }) {
    const u = host.session.usage;
    return `Tokens this session: ${u.inputTokens.toLocaleString("en-US")} in, ${u.outputTokens.toLocaleString("en-US")} out.`;
  },
});
