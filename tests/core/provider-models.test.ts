/**
 * A provider declares its models: aliases (`--model fast` → `acme:acme-fast-2`, config `modelAliases` over
 * them) and context windows (the serving provider's families first, then any other's). A config `model`
 * nothing explains is a config error naming the file once the providers are registered; a malformed
 * declaration is refused at registration.
 */
import { afterEach, expect, test } from "vitest";
import { resolveModel } from "../../core/embed.js";
import { ConfigError } from "../../kit/errors.js";
import { contextWindowFor } from "../../plugins/compaction/context-window.js";
import { createTestHost, scriptedProvider, type TestHost } from "../../testing/index.js";

let t: TestHost | undefined;
afterEach(async () => t?.close());

const acme = { ...scriptedProvider([], "acme"), modelAliases: { fast: "acme-fast-2" }, contextWindows: [{ model: /^acme-/, tokens: 50_000 }] };
const gateway = { ...scriptedProvider([], "gateway") };

test("a provider's aliases resolve to provider:model, and config modelAliases win over them", async () => {
  t = await createTestHost({ plugins: [{ name: "models", providers: [acme] }] });
  expect(resolveModel(t.host, "fast").ref).toBe("acme:acme-fast-2");
  await t.close();
  t = await createTestHost({ plugins: [{ name: "models", providers: [acme] }], config: { modelAliases: { fast: "acme:acme-turbo" } } });
  expect(resolveModel(t.host, "fast").ref).toBe("acme:acme-turbo");
});

test("a window is the serving provider's, else another provider's for that family, else the default", () => {
  expect(contextWindowFor("acme:acme-fast-2", undefined, [gateway, acme])).toEqual({ tokens: 50_000, source: "table" });
  expect(contextWindowFor("gateway:vendor/acme-x", undefined, [gateway, acme]).tokens).toBe(50_000);
  expect(contextWindowFor("gateway:other", undefined, [gateway, acme]).source).toBe("default");
  expect(contextWindowFor("acme:acme-fast-2", 9_000, [acme])).toEqual({ tokens: 9_000, source: "config" });
});

test("config model that no provider's alias explains: a config error naming the file and the closest alias", async () => {
  const err = await createTestHost({ plugins: [{ name: "models", providers: [acme] }], files: { ".agentrc.json": { model: "fsat" } }, loadConfigFiles: true }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toContain(".agentrc.json");
  expect((err as Error).message).toContain('model: "fsat" is neither provider:model');
  expect((err as Error).message).toContain('did you mean "fast"?');
});

test("malformed declarations are refused at registration, naming the field", async () => {
  const bad = [
    { ...scriptedProvider([], "bad1"), modelAliases: { "a:b": "x" } },
    { ...scriptedProvider([], "bad2"), contextWindows: [{ model: "^x", tokens: 10 }] },
  ];
  t = await createTestHost({ plugins: [{ name: "models", providers: bad as never }] });
  const problems = t.host.problems.map((p) => p.message).join("\n");
  expect(problems).toContain('"bad1" rejected: modelAliases must map alias names');
  expect(problems).toContain('"bad2" rejected: contextWindows must be a list');
});
