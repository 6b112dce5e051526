/** The SDK's Client (v2: speaks both protocol eras). */
export { Client } from "@modelcontextprotocol/client";
