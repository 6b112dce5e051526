/**
 * The one place that loads the MCP SDK. Everything here is imported on demand: a host with no MCP
 * servers never loads it, a host with only stdio servers never loads the HTTP transports.
 */
import { preloadWhenShort } from "./esm-preload.js";

let core: Promise<typeof import("./sdk-core.js")> | undefined;

/** The packages sdk-core.ts imports (a test checks the list against it). */
export const CORE_PACKAGES = ["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/types.js", "@modelcontextprotocol/sdk/shared/stdio.js"];
let http: Promise<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")> | undefined;
let sse: Promise<typeof import("@modelcontextprotocol/sdk/client/sse.js")> | undefined;

/** Client, the protocol schemas and our stdio transport. */
export function loadCore() {
  return (core ??= preloadWhenShort(CORE_PACKAGES).then(() => import("./sdk-core.js")));
}

export function loadStreamableHttp() {
  return (http ??= import("@modelcontextprotocol/sdk/client/streamableHttp.js"));
}

export function loadSse() {
  return (sse ??= import("@modelcontextprotocol/sdk/client/sse.js"));
}
