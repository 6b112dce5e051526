/**
 * The shortcuts of fast-checks.ts must never accept what the SDK's schema refuses, and must hand on
 * what the schema would (its copy equals the value). Checked on the shapes servers send, on near
 * misses one key or type away, and on seeded random mutations of both.
 */
import { CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { describe, expect, it } from "vitest";
import { callToolResultSchema, isPlainCallToolResult, isPlainResultResponse } from "../../../plugins/mcp/transport/fast-checks.js";

const text = (t: string) => ({ type: "text", text: t });

const responses: unknown[] = [
  { jsonrpc: "2.0", id: 1, result: { content: [text("hi")] } },
  { id: "a-b", jsonrpc: "2.0", result: {} },
  { jsonrpc: "2.0", id: 0, result: { tools: [], nextCursor: "x" } },
  // Near misses: each is refused by the shortcut (some the schema takes, with a copy or a default).
  { jsonrpc: "2.0", id: 1.5, result: {} },
  { jsonrpc: "2.0", id: 2 ** 53, result: {} },
  { jsonrpc: "2.0", id: null, result: {} },
  { jsonrpc: "1.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, result: [] },
  { jsonrpc: "2.0", id: 1, result: null },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 1 } } },
  { jsonrpc: "2.0", id: 1, result: {}, extra: true },
  { jsonrpc: "2.0", id: 1, result: {}, method: "x" },
  { jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } },
  { jsonrpc: "2.0", id: 1 },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
  JSON.parse('{"jsonrpc":"2.0","id":1,"__proto__":{"x":1},"result":{}}'),
  [{ jsonrpc: "2.0", id: 1, result: {} }],
  "text",
  null,
];

const results: unknown[] = [
  { content: [] },
  { content: [text("a"), text("")] },
  { content: [text("a")], isError: true },
  { isError: false, content: [text("a")] },
  // Refused by the shortcut:
  {},
  { isError: true },
  { content: [text("a")], isError: "yes" },
  { content: [text("a")], isError: null },
  { content: [{ type: "text", text: 1 }] },
  { content: [{ type: "text" }] },
  { content: [{ type: "text", text: "a", annotations: { priority: 2 } }] },
  { content: [{ type: "text", text: "a", extra: 1 }] },
  { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] },
  { content: [{ type: "resource_link", uri: "file:///a", name: "a" }] },
  { content: [text("a")], structuredContent: { n: 1 } },
  { content: [text("a")], structuredContent: [1] },
  { content: [text("a")], _meta: { x: 1 } },
  { content: [text("a")], other: 1 },
  { content: "a" },
  { content: [null] },
  { content: [[text("a")]] },
  [],
  null,
];

/** Deterministic mutations: drop, add or retype one key somewhere in the value. */
function mutations(value: unknown, seed: number, count: number): unknown[] {
  let s = seed;
  const rnd = (n: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31) % n);
  const junk = [null, 1, 1.5, -0, "", "2.0", "text", true, [], {}, [text("x")], { type: "text", text: "y" }];
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    const objects: Record<string, unknown>[] = [];
    const walk = (v: unknown) => {
      if (v && typeof v === "object") {
        objects.push(v as Record<string, unknown>);
        for (const x of Object.values(v)) walk(x);
      }
    };
    walk(copy);
    if (!objects.length) continue;
    const target = objects[rnd(objects.length)]!;
    const keys = Object.keys(target);
    const op = rnd(3);
    if (op === 0 && keys.length) delete target[keys[rnd(keys.length)]!];
    else if (op === 1) target[["extra", "_meta", "isError", "annotations", "id", "type", "text", "content", "result", "structuredContent"][rnd(10)]!] = junk[rnd(junk.length)];
    else if (keys.length) target[keys[rnd(keys.length)]!] = junk[rnd(junk.length)];
    // As read from a line: JSON has no named keys on arrays, no undefined.
    out.push(JSON.parse(JSON.stringify(copy)) as unknown);
  }
  return out;
}

describe("fast checks agree with the SDK's schemas", () => {
  it("a result response: accepted only where JSONRPCMessageSchema accepts it, as the same value", () => {
    const all = [...responses, ...responses.slice(0, 3).flatMap((r, i) => mutations(r, i + 1, 400))];
    let accepted = 0;
    for (const v of all) {
      if (!isPlainResultResponse(v)) continue;
      accepted++;
      const parsed = JSONRPCMessageSchema.safeParse(v);
      expect(parsed.success, JSON.stringify(v)).toBe(true);
      expect(parsed.data).toEqual(v);
    }
    // The plain shapes take the shortcut; the near misses of the fixed list do not.
    expect(responses.slice(0, 3).every(isPlainResultResponse)).toBe(true);
    expect(responses.slice(3).some(isPlainResultResponse)).toBe(false);
    expect(accepted).toBeGreaterThan(3);
  });

  it("a tool result: accepted only where CallToolResultSchema accepts it, as the same value", () => {
    const all = [...results, ...results.slice(0, 4).flatMap((r, i) => mutations(r, i + 7, 400))];
    let accepted = 0;
    for (const v of all) {
      if (!isPlainCallToolResult(v)) continue;
      accepted++;
      const parsed = CallToolResultSchema.safeParse(v);
      expect(parsed.success, JSON.stringify(v)).toBe(true);
      expect(parsed.data).toEqual(v);
    }
    expect(results.slice(0, 4).every(isPlainCallToolResult)).toBe(true);
    expect(results.slice(4).some(isPlainCallToolResult)).toBe(false);
    expect(accepted).toBeGreaterThan(4);
  });

  it("the result schema handed to callTool gives the SDK schema's answer for everything else", () => {
    for (const v of results) {
      const ours = callToolResultSchema.safeParse(v);
      const sdk = CallToolResultSchema.safeParse(v);
      expect(ours.success, JSON.stringify(v)).toBe(sdk.success);
      if (sdk.success) expect(ours.data).toEqual(sdk.data);
    }
    // A missing content list gets the schema's default, as with the SDK's own schema.
    expect(callToolResultSchema.safeParse({ isError: true })).toMatchObject({ success: true, data: { content: [], isError: true } });
  });
});
