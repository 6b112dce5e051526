/**
 * The SDK's Client, checking tool results with the shortcut of transport/fast-checks.ts unless a caller names
 * its own schema: everything else is the SDK's.
 */
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { callToolResultSchema } from "../transport/fast-checks.js";

export class Client extends SdkClient {
  override callTool(...[params, resultSchema, options]: Parameters<SdkClient["callTool"]>): ReturnType<SdkClient["callTool"]> {
    return super.callTool(params, resultSchema ?? (callToolResultSchema as unknown as NonNullable<typeof resultSchema>), options);
  }
}

