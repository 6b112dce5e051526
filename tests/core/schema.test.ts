/** JSON Schema validators: compiled once, on first use, however many calls arrive while it compiles. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { jsonSchemaValidator } from "../../kit/schema.js";

describe("jsonSchemaValidator", () => {
  test("concurrent first calls share one compilation; later calls use it without waiting", async () => {
    const lazy = jsonSchemaValidator({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    expect(lazy.compiled).toBeUndefined();
    const [a, b, c] = await Promise.all([lazy(), lazy(), lazy()]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(lazy.compiled).toBe(a);
    expect(a({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(a({})).toEqual({ ok: false, issues: ["n: required property is missing"] });
  });

  test("a schema ajv cannot compile still checks that the input is an object", async () => {
    const lazy = jsonSchemaValidator({ type: "object", properties: { x: { $ref: "#/nowhere" } } });
    const v = await lazy();
    expect(v({ x: 1 })).toEqual({ ok: true, value: { x: 1 } });
    expect(v([])).toEqual({ ok: false, issues: ["(input): expected an object"] });
  });

  test("dialects: a schema's $schema decides, else the given default; 2020-12 reads prefixItems, unevaluatedProperties and $dynamicRef", async () => {
    const tuple = { type: "object", properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } } };
    const v2020 = await jsonSchemaValidator(tuple, "2020-12")();
    expect(v2020({ pair: ["a", 1] }).ok).toBe(true);
    expect(v2020({ pair: [1, "a"] })).toMatchObject({ ok: false, issues: expect.arrayContaining(["pair[0]: must be string"]) });
    expect(v2020({ pair: ["a", 1, 2] }).ok).toBe(false);
    // The same schema declaring 2020-12 itself is read as 2020-12 whatever the default.
    expect((await jsonSchemaValidator({ $schema: "https://json-schema.org/draft/2020-12/schema", ...tuple })())({ pair: [1, "a"] }).ok).toBe(false);
    // draft-07 (the default) does not know prefixItems: only `items: false` applies there.
    expect((await jsonSchemaValidator(tuple)())({ pair: [] }).ok).toBe(true);
    const closed = { type: "object", allOf: [{ properties: { a: { type: "string" } } }], unevaluatedProperties: false };
    const vClosed = await jsonSchemaValidator(closed, "2020-12")();
    expect(vClosed({ a: "x" }).ok).toBe(true);
    expect(vClosed({ a: "x", b: 1 }).ok).toBe(false);
    const dynamic = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { node: { $dynamicAnchor: "node", type: "object", properties: { next: { $dynamicRef: "#node" } } } },
      properties: { list: { $ref: "#/$defs/node" } },
    };
    const vDynamic = await jsonSchemaValidator(dynamic)();
    expect(vDynamic({ list: { next: { next: {} } } }).ok).toBe(true);
    expect(vDynamic({ list: { next: { next: 3 } } }).ok).toBe(false);
  });

  test("a $ref to another document is never fetched: the schema is not compiled, only the object check applies", async () => {
    let hits = 0;
    const server = createServer((_req, res) => (hits++, res.end('{"type":"string"}')));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/schema.json`;
      const v = await jsonSchemaValidator({ type: "object", properties: { p: { $ref: url } } }, "2020-12")();
      expect(v({ p: 1 })).toEqual({ ok: true, value: { p: 1 } });
      expect(hits).toBe(0);
    } finally {
      server.close();
    }
  });
});
