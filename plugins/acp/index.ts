/**
 * The acp plugin: `agent acp`, the host as an Agent Client Protocol agent over stdio (JSON-RPC, protocol
 * version 1 as `@agentclientprotocol/sdk` defines it), for editors such as Zed. Each editor session is a
 * host of its own (its folder, the editor's MCP servers added to its registry, gated like any other);
 * every "ask" of the gate is put to the editor as `session/request_permission`. Written only against the
 * public API; the SDK loads when the command runs.
 */
import { defineCliCommand, definePlugin } from "../../core/index.js";

const acp = defineCliCommand({
  name: "acp",
  description: "run as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim, Emacs)",
  usage: "[--model <p:m>]",
  details: [
    "The editor starts this command and speaks ACP on its stdin/stdout; nothing else is written to stdout.",
    "Global options apply to every session: --permission-mode, --allowedTools, --disallowedTools, --add-dir.",
    "Tool calls that need approval are asked in the editor (allow once, always for this session, reject).",
  ].join("\n"),
  options: {
    model: { type: "string", short: "m", valueName: "<p:m>", description: "provider:model or an alias for every session (default: AGENT_MODEL, then config \"model\")" },
    "max-turns": { type: "string", valueName: "<n>", description: "model requests per prompt (default: config maxTurns, else 50)" },
  },
  positionals: false,
  async run(ctx) {
    const { runAcp } = await import("./agent.js");
    return runAcp(ctx);
  },
});

export default definePlugin({ name: "acp", cli: [acp] });
