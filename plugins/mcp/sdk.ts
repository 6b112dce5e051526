/**
 * The one place that loads the MCP SDK. Everything here is imported on demand: a host with no MCP
 * servers never loads it, a host with only stdio servers never loads the HTTP transports.
 */
let core: Promise<typeof import("./sdk-core.js")> | undefined;
let http: Promise<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")> | undefined;
let sse: Promise<typeof import("@modelcontextprotocol/sdk/client/sse.js")> | undefined;

/** Client, the protocol schemas and our stdio transport. */
export function loadCore() {
  return (core ??= import("./sdk-core.js"));
}

export function loadStreamableHttp() {
  return (http ??= import("@modelcontextprotocol/sdk/client/streamableHttp.js"));
}

export function loadSse() {
  return (sse ??= import("@modelcontextprotocol/sdk/client/sse.js"));
}
