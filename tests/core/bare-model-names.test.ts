/** resolveModel for a name with no provider prefix: the one provider whose knowsModel claims it. */
import { afterEach, expect, test } from "vitest";
import { resolveModel } from "../../core/embed.js";
import { createTestHost, scriptedProvider, type TestHost } from "../../testing/index.js";

let t: TestHost | undefined;
afterEach(async () => t?.close());

function provider(name: string, knows: RegExp) {
  return { ...scriptedProvider([], name), knowsModel: (m: string) => knows.test(m) };
}

test("one provider knows the name: it serves it; two: a usage error naming both; none: an unknown model", async () => {
  t = await createTestHost({ plugins: [{ name: "models", providers: [provider("alpha", /^a-/), provider("beta", /^(a-|b-)/)] }] });
  expect(resolveModel(t.host, "b-1").ref).toBe("beta:b-1");
  expect(() => resolveModel(t!.host, "a-1")).toThrow('Model "a-1" is served by alpha and beta: say which, e.g. alpha:a-1.');
  expect(() => resolveModel(t!.host, "c-1")).toThrow('Unknown model: "c-1"');
  // An alias still wins over a bare name, and provider:model is taken as written.
  expect(resolveModel(t.host, "alpha:b-1").ref).toBe("alpha:b-1");
});
