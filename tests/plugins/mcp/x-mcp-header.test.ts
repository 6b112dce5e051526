/** SEP-2243's rules for `x-mcp-header` declarations (a 2026-07-28 HTTP client leaves out a tool that breaks one). */
import { expect, it } from "vitest";
import { declaresHeaders, xMcpHeaderFault } from "../../../plugins/mcp/x-mcp-header.js";

const tool = (properties: Record<string, unknown>) => ({ type: "object", properties });

it("accepts string, integer and boolean properties with unique token names, nested through properties", () => {
  const schema = tool({ region: { type: "string", "x-mcp-header": "Region" }, n: { type: "integer", "x-mcp-header": "N" }, o: { type: "object", properties: { flag: { type: "boolean", "x-mcp-header": "Flag" } } } });
  expect(xMcpHeaderFault(schema)).toBeUndefined();
  expect(declaresHeaders(schema)).toBe(true);
  expect(declaresHeaders(tool({ a: { type: "string" } }))).toBe(false);
});

it("names what is wrong with each kind of invalid declaration", () => {
  const faults: [Record<string, unknown>, RegExp][] = [
    [tool({ v: { type: "string", "x-mcp-header": "" } }), /must be a non-empty string/],
    [tool({ v: { type: "number", "x-mcp-header": "Score" } }), /string, integer or boolean property \(this one is "number"\)/],
    [tool({ v: { type: "object", "x-mcp-header": "Data" } }), /string, integer or boolean/],
    [tool({ a: { type: "string", "x-mcp-header": "MyField" }, b: { type: "string", "x-mcp-header": "myfield" } }), /declared twice/],
    [tool({ v: { type: "string", "x-mcp-header": "My Region" } }), /not an HTTP header name/],
    [tool({ v: { type: "string", "x-mcp-header": "Région" } }), /not an HTTP header name/],
    [tool({ v: { type: "string", "x-mcp-header": "A:B" } }), /not an HTTP header name/],
    [tool({ list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }), /reached through "properties"/],
  ];
  for (const [schema, reason] of faults) expect(xMcpHeaderFault(schema), JSON.stringify(schema)).toMatch(reason);
});
