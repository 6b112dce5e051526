/** JSON Schema validators: compiled once, on first use, however many calls arrive while it compiles. */
import { describe, expect, test } from "vitest";
import { jsonSchemaValidator } from "../../core/registry/schema.js";

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
});
