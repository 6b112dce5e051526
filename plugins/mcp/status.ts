/**
 * Per-server status, readable by any code that holds the host (`agent mcp list`, `/mcp`, embedders,
 * other plugins): `getMcpStatus(host)`. The plugin publishes a live view when it sets up; no MCP code
 * is loaded to read it. Keyed per host with the public `definePluginHooks`, as any plugin can.
 */
import { definePluginHooks, type PluginHost } from "../../core/index.js";

/** `idle`: not started yet: a server starts when one of its tools is needed, a run starts, or everything is listed. */
export type McpServerState = "idle" | "connecting" | "connected" | "failed" | "disabled" | "disconnected";

export interface McpServerStatus {
  name: string;
  /** `auto` until a remote server has connected (then `http` or `sse`). */
  transport: "stdio" | "http" | "sse" | "auto";
  status: McpServerState;
  /** Registered tools of this server (the resources helper not counted). */
  tools: number;
  /** Prompts offered as slash commands. */
  prompts: number;
  /** Whether the server has resources (listed and read through `mcp__<server>__resources`). */
  resources: boolean;
  /** Skills it serves, registered as `<server>-<name>` (absent for servers that never connected). */
  skills?: number;
  /** Time the last connection attempt took, in ms. */
  connectMs?: number;
  error?: string;
  /** The command line or URL (never env or headers). */
  target: string;
  /** What the server says it is (`initialize` result). */
  server?: { name: string; version: string };
  /** Process id of a running stdio server. */
  pid?: number;
  /** Tools the server listed that were skipped (an invalid schema), with the reason. */
  skippedTools?: { name: string; reason: string }[];
  /** Frames and stdout lines of the live session that were refused or ignored (details in the server's log). */
  noise?: number;
  /** `warm`: its tools were registered from the disk cache before it ran (when that cache was written); `cold`: none was usable. */
  cache?: { state: "warm" | "cold"; savedAt?: string };
}

const statusOf = definePluginHooks(() => ({ read: (): McpServerStatus[] => [] }));

export function publishStatus(host: PluginHost, read: () => McpServerStatus[]): void {
  statusOf(host).read = read;
}

/** Status of every configured MCP server, in config order; empty when the MCP plugin is not loaded. */
export function getMcpStatus(host: PluginHost): McpServerStatus[] {
  return statusOf(host).read();
}
