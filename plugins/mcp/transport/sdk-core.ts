/** What every MCP connection needs from the SDK (loaded lazily through sdk.ts). */
export { Client } from "../client/sdk-client.js";
export { ProcessTransport } from "./stdio-transport.js";
export { GuardedTransport } from "./frame-guard.js";
export { listPrompts, listTools } from "../tool-list.js";
