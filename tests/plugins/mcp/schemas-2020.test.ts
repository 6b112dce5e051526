/**
 * JSON Schema 2020-12 for MCP tools, through the built CLI with a real stdio server: an input schema that
 * declares no `$schema` is read as 2020-12 (prefixItems, unevaluatedProperties), one that declares draft-07
 * as draft-07, and a tool's structuredContent is checked against its outputSchema (a mismatch is an error
 * naming the path).
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agent, project } from "./_cli.js";
import { undeclaredDialect } from "../../../plugins/mcp/schema-dialect.js";
import { cleanup, FIXTURES } from "./_helpers.js";

afterAll(cleanup);

const p = project({ ".mcp.json": { mcpServers: { s: { command: process.execPath, args: [path.join(FIXTURES, "schemas-2020.mjs")] } } } });
const call = (tool: string, args: object) => agent(p, ["--permission-mode", "bypass", "call", `mcp__s__${tool}`, JSON.stringify(args)]);

describe("input schemas", () => {
  it("without $schema: 2020-12 (prefixItems with items: false, unevaluatedProperties)", { timeout: 60_000 }, async () => {
    expect(await call("pair", { pair: ["a", 1] })).toMatchObject({ code: 0, stdout: '{"pair":["a",1]}\n' });
    const swapped = await call("pair", { pair: [1, "a"] });
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toContain("pair[0]: must be string");
    expect((await call("pair", { pair: ["a", 1, 2] })).code).toBe(2);
    expect((await call("closed", { a: "x" })).code).toBe(0);
    const extra = await call("closed", { a: "x", b: 1 });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("must NOT have unevaluated properties");
  });

  it("declaring draft-07: read as draft-07 (items as an array is the tuple)", { timeout: 60_000 }, async () => {
    expect((await call("tuple07", { t: ["x"] })).code).toBe(0);
    const bad = await call("tuple07", { t: [1] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("t[0]: must be string");
  });
});

describe("draft-07 written without $schema", () => {
  it("items as an array, additionalItems, definitions: read as draft-07, so the tuple is checked", { timeout: 60_000 }, async () => {
    expect(await call("bare07", { t: ["x"] })).toMatchObject({ code: 0, stdout: '{"t":["x"]}\n' });
    const wrong = await call("bare07", { t: [1] });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("t[0]: must be string");
    const longer = await call("bare07", { t: ["x", "y"] });
    expect(longer.code).toBe(2);
    expect(longer.stderr).toContain("must NOT have more than 1 items");
  });

  it("only what can mean nothing else decides; a 2020-12 keyword anywhere keeps 2020-12", () => {
    expect(undeclaredDialect({ type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } })).toBe("draft-07");
    expect(undeclaredDialect({ type: "object", properties: { t: { type: "array", items: { type: "string" } } } })).toBe("2020-12");
    expect(undeclaredDialect({ type: "object", dependencies: { a: ["b"] } })).toBe("draft-07");
    // Property names are not keywords, nor are enum values.
    expect(undeclaredDialect({ type: "object", properties: { definitions: { type: "string" }, additionalItems: { type: "number" } } })).toBe("2020-12");
    expect(undeclaredDialect({ type: "object", properties: { k: { enum: [{ additionalItems: 1 }] } } })).toBe("2020-12");
    expect(undeclaredDialect({ type: "object", definitions: { a: { type: "string" } }, $defs: { b: { type: "string" } } })).toBe("2020-12");
    expect(undeclaredDialect({ type: "object", properties: { p: { prefixItems: [{}], items: [{}] } } })).toBe("2020-12");
  });
});

describe("output schemas", () => {
  it("a structuredContent that matches passes; one that does not is an error naming the path; none at all is an error", { timeout: 60_000 }, async () => {
    const good = await agent(p, ["--permission-mode", "bypass", "call", "mcp__s__weather", "{}", "--json"]);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, structured: { temperature: 21.5, conditions: "sunny" } });

    const bad = await call("weather", { mode: "bad" });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("MCP server s: the result of tool weather does not match its outputSchema:");
    expect(bad.stderr).toContain("structuredContent.temperature: must be number");
    // 2020-12 in the output schema too: `items: false` after prefixItems refuses a third entry.
    expect(bad.stderr).toContain("structuredContent.range: must NOT have more than 2 items");

    const none = await call("weather", { mode: "none" });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("MCP server s: tool weather declares an outputSchema but its result has no structuredContent.");
  });
});
