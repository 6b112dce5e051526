/**
 * The registry as MCP tools: names as the model sees them, schemas whole, annotations from the host's
 * risk (the host decides; the upstream server's own hints are kept only where the risk says nothing).
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { PluginHost, RegisteredTool, Risk, ToolResult } from "../../core/index.js";
import { isAgentHostServer } from "./loop-guard.js";


const RISK_HINTS: Record<Risk, Record<string, boolean>> = {
  read: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  execute: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  network: { readOnlyHint: false, openWorldHint: true },
};

/** The tools a client may see: all of the registry but those of a server that is agent-host itself. */
export function servedTools(host: PluginHost): RegisteredTool[] {
  return host.tools.list().filter((t) => !isAgentHostServer(host, t));
}

export function toolView(tool: RegisteredTool): Tool {
  const upstream = (tool.meta?.annotations ?? {}) as Record<string, unknown>;
  const title = typeof upstream.title === "string" ? { title: upstream.title } : {};
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...(tool.inputSchema as Record<string, unknown>), type: "object" },
    annotations: { ...title, ...RISK_HINTS[tool.risk] },
  };
}

/** A gate result as an MCP tool result: a failure (denied, invalid, timed out) is `isError`, its text says why. */
export function callResult(result: ToolResult): { content: { type: "text"; text: string }[]; isError?: boolean } {
  return { content: [{ type: "text", text: result.output }], ...(result.ok ? {} : { isError: true }) };
}
