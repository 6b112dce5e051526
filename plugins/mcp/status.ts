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
  /** The protocol revision the server speaks (`2026-07-28`, `2025-11-25`, …), live or from the tool cache. */
  protocol?: string;
  /** What the server says it is (`initialize` result). */
  server?: { name: string; version: string };
  /** Process id of a running stdio server. */
  pid?: number;
  /** Tools the server listed that were skipped (an invalid schema), with the reason. */
  skippedTools?: { name: string; reason: string }[];
  /** Frames and stdout lines of the live session that were refused or ignored (details in the server's log). */
  noise?: number;
  /** The server's log file (in `.agent/logs/`, or the user's state folder when the project had no `.agent/`); absent for a server that is not run (disabled, invalid). */
  log?: string;
  /** `warm`: its tools were registered from the disk cache before it ran (when that cache was written); `cold`: none was usable. */
  cache?: { state: "warm" | "cold"; savedAt?: string };
  /**
   * OAuth of a remote server (absent for stdio servers and `"oauth": false`): `none` (no tokens held;
   * the server may need none), `needs-login` (run `agent mcp login <server>`), `authorized` (with the
   * token's expiry and scope), `expired` (and no refresh token), `client-credentials`.
   */
  auth?: { state: "none" | "needs-login" | "authorized" | "expired" | "client-credentials"; expiresAt?: string; scope?: string; refreshable?: boolean };
}

const statusOf = definePluginHooks(() => ({ read: (): McpServerStatus[] => [] }));

export function publishStatus(host: PluginHost, read: () => McpServerStatus[]): void {
  statusOf(host).read = read;
}

/** Status of every configured MCP server, in config order; empty when the MCP plugin is not loaded. */
export function getMcpStatus(host: PluginHost): McpServerStatus[] {
  return statusOf(host).read();
}

/** What `agent mcp login/logout`, the interactive session and embedders ask of the MCP plugin of a host. */
export interface McpControl {
  /** Log in to a remote server (browser, or client_credentials); a connected server reconnects with the new tokens. */
  login(server: string, print: (line: string) => void): Promise<{ scope?: string; expiresAt?: number; open?: boolean }>;
  /** Forget a server's tokens; false when there were none. */
  logout(server: string): Promise<boolean>;
  /** Tell every connected server that the roots changed (`notifications/roots/list_changed`); they ask again with `roots/list`. */
  rootsChanged(): void;
}

const authOf = definePluginHooks(() => ({ control: undefined as McpControl | undefined }));

export function publishControl(host: PluginHost, control: McpControl): void {
  authOf(host).control = control;
}

/** Login, logout and roots changes for the MCP plugin of `host`; undefined when no enabled server is configured. */
export function getMcpControl(host: PluginHost): McpControl | undefined {
  return authOf(host).control;
}
