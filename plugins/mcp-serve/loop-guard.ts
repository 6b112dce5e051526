/**
 * A server that is agent-host serving (`agent mcp serve` in its command line) is not served again: its
 * tools are the same registry's, through a gate of their own, and a client would see each twice.
 */
import type { PluginHost, RegisteredTool } from "../../core/index.js";

interface ServerEntry {
  command?: unknown;
  args?: unknown;
}

/** `mcp serve` as consecutive words of the server's command line. */
export function servesAgentHost(entry: ServerEntry | undefined): boolean {
  if (!entry || typeof entry.command !== "string") return false;
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args.map(String) : [])];
  return words.some((w, i) => w === "mcp" && words[i + 1] === "serve");
}

export function isAgentHostServer(host: PluginHost, tool: RegisteredTool): boolean {
  const server = tool.meta?.mcpServer;
  if (typeof server !== "string") return false;
  const servers = (host.config as { mcpServers?: Record<string, ServerEntry> }).mcpServers;
  return servesAgentHost(servers?.[server]);
}
