/**
 * Exact shortcuts for the two schema checks every tool call's answer goes through: the JSON-RPC frame
 * (JSONRPCMessageSchema, in the stdio transport) and the result (CallToolResultSchema, in
 * `Client.callTool`). Each accepts only a plain subset of what the SDK's zod schema accepts, for which
 * zod would return an equal value (its copy), and hands everything else to the schema itself. Zod's
 * union and object parsers build copies of every level: a third of the client CPU the raw SDK spends
 * on a call to a local server (bench/mcp.mjs). tests/plugins/mcp/fast-checks.test.ts holds each
 * shortcut to the schema on the shapes servers send and on near misses.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { CallToolResultSchema } from "@modelcontextprotocol/core";

import { isRecord } from "../config/values.js";

type Loose = Record<string, unknown>;

/** Own keys only from `allowed` (for…in: a JSON object has no inherited enumerable keys), and how many. */
function keysWithin(v: Loose, allowed: (key: string) => boolean): number {
  let n = 0;
  for (const k in v) {
    if (!allowed(k)) return -1;
    n++;
  }
  return n;
}

const RESPONSE_KEY = (k: string) => k === "jsonrpc" || k === "id" || k === "result";

/**
 * `{"jsonrpc":"2.0","id":…,"result":{…}}` with nothing else, an integer or string id and a result
 * without `_meta`: a message JSONRPCMessageSchema accepts as a result response, unchanged.
 */
export function isPlainResultResponse(v: unknown): boolean {
  if (!isRecord(v) || keysWithin(v, RESPONSE_KEY) !== 3 || v.jsonrpc !== "2.0") return false;
  const id = v.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return false;
  const result = v.result;
  return isRecord(result) && !("_meta" in result);
}

const RESULT_KEY = (k: string) => k === "content" || k === "isError";
const TEXT_KEY = (k: string) => k === "type" || k === "text";

/** `{content: [{type: "text", text}…], isError?: boolean}` and nothing else: what most tools answer. */
export function isPlainCallToolResult(v: unknown): v is CallToolResult {
  if (!isRecord(v) || keysWithin(v, RESULT_KEY) < 1) return false;
  if (v.isError !== undefined && typeof v.isError !== "boolean") return false;
  const content = v.content;
  if (!Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isRecord(block) || keysWithin(block, TEXT_KEY) !== 2 || block.type !== "text" || typeof block.text !== "string") return false;
  }
  return true;
}

/**
 * The result schema our client hands `Client.callTool`. The SDK parses a result with `schema.safeParse`
 * when the schema is not a zod 4 one (its zod-compat), so this object is used as it is.
 */
export const callToolResultSchema = {
  safeParse(data: unknown) {
    return isPlainCallToolResult(data) ? { success: true as const, data } : CallToolResultSchema.safeParse(data);
  },
};
