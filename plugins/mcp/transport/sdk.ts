/**
 * The one place that loads the MCP SDK (v2: @modelcontextprotocol/client, one bundle for every
 * transport). Imported on demand: a host with no MCP servers, or one serving cached tool lists
 * (`agent tools`), never loads it.
 */
import { preloadWhenShort } from "./esm-preload.js";

let core: Promise<typeof import("./sdk-core.js")> | undefined;

/** The packages sdk-core.ts imports (a test checks the list against it). */
export const CORE_PACKAGES = ["@modelcontextprotocol/client", "@modelcontextprotocol/core"];

/** Client, the protocol schemas and our stdio transport. */
export function loadCore() {
  return (core ??= preloadWhenShort(CORE_PACKAGES).then(() => import("./sdk-core.js")));
}

export function loadStreamableHttp() {
  return import("@modelcontextprotocol/client");
}

export function loadSse() {
  return import("@modelcontextprotocol/client");
}
