/**
 * The mcp-serve plugin: `agent mcp serve`, the host's registry as one MCP server. Every tool the model
 * would see (built-in, plugins', every configured MCP server's) is listed; every call passes the same
 * gate as the host's own (rules, hooks, audit, caps), the client named in the audit. Markdown commands
 * and MCP prompts are its prompts, skills its `skill://` resources. Written only against the public API;
 * the SDK loads when the command runs.
 */
import { defineCliCommand, definePlugin } from "../../core/index.js";

const serve = defineCliCommand({
  name: "serve",
  description: "serve this project's tools, prompts and skills as an MCP server (stdio, or --http)",
  usage: "[--http [host:]port]",
  details: [
    "Every tools/call passes the gate with this project's permission mode and rules, and is audited with the",
    "client's name. A call that needs approval is asked of the client (an elicitation) when it can answer;",
    "otherwise it is denied, the message naming the rule to add (permissions.allow).",
    "--http listens on 127.0.0.1 (Streamable HTTP at /mcp) and prints the bearer token clients must send;",
    "AGENT_MCP_SERVE_TOKEN sets the token instead. Requests whose Host or Origin is not local are refused.",
  ].join("\n"),
  options: {
    http: { type: "string", valueName: "<[host:]port>", description: "serve Streamable HTTP on 127.0.0.1 (or a loopback host) instead of stdio" },
  },
  positionals: false,
  async run(ctx) {
    const { runServe } = await import("./serve.js");
    return runServe(ctx);
  },
});

export default definePlugin({
  name: "mcp-serve",
  // No `run`: `agent mcp` is the MCP plugin's command; `serve` joins its subcommands.
  cli: [defineCliCommand({ name: "mcp", description: "serve the host as an MCP server: agent mcp serve", subcommands: [serve] })],
});
