/** The editor's MCP servers (ACP `McpServer`) as `mcpServers` config entries for the session's host. */
import type { McpServer } from "@agentclientprotocol/sdk";

type Pair = { name: string; value: string };
const record = (pairs: Pair[] | undefined) => Object.fromEntries((pairs ?? []).map((p) => [p.name, p.value]));

export function mcpServersConfig(servers: readonly McpServer[] | undefined): Record<string, unknown> | undefined {
  if (!servers?.length) return undefined;
  const out: Record<string, unknown> = {};
  for (const s of servers) {
    if ("command" in s) out[s.name] = { command: s.command, args: s.args ?? [], env: record(s.env) };
    else if ("url" in s) out[s.name] = { type: s.type === "sse" ? "sse" : "http", url: s.url, headers: record(s.headers) };
  }
  return out;
}
