/**
 * Type tests of the folder-trust part of the public API: what a plugin that reads a folder's own files
 * asks (`env.trust.admit`), what it may look at (`ctx.trust`), how a section says how it loads untrusted,
 * and what an embedder sets and reads. Checked by vitest's typecheck; nothing here runs.
 */
import { describe, expectTypeOf, test } from "vitest";
import { createHost, definePlugin, z } from "../../core/index.js";
import { prepareHost, type ConfigTrust, type CreateHostOptions, type FolderTrustView, type TrustItem, type TrustReport, type TrustState } from "../../core/embed.js";

describe("folder trust for plugin authors", () => {
  test("a config hook asks before using a part of the folder's own file", () => {
    definePlugin({
      name: "reads-its-own-file",
      config(_config, env) {
        expectTypeOf(env.trust).toEqualTypeOf<ConfigTrust>();
        expectTypeOf(env.trust.admit({ kind: "server", name: "x", file: "/p/x.json", value: { command: "x" }, detail: "runs x" })).toEqualTypeOf<boolean>();
        // @ts-expect-error the value decides whether the part changed since the decision: it is required
        env.trust.admit({ kind: "server", name: "x", file: "/p/x.json" });
        // @ts-expect-error a plugin reads the decision, it cannot make it
        env.trust.trusted = true;
      },
    });
  });

  test("setup sees whether the folder is trusted, read-only", () => {
    definePlugin({
      name: "looks",
      setup(ctx) {
        expectTypeOf(ctx.trust).toEqualTypeOf<FolderTrustView>();
        expectTypeOf(ctx.trust.trusted).toEqualTypeOf<boolean>();
        expectTypeOf(ctx.trust.folder).toEqualTypeOf<string>();
        // @ts-expect-error read-only
        ctx.trust.trusted = true;
      },
    });
  });

  test("a config section says how it loads from an untrusted folder", () => {
    definePlugin({ name: "inert", configSections: { mine: { schema: z.object({}), trust: "inert" } } });
    definePlugin({ name: "entries", configSections: { servers: { schema: z.record(z.string(), z.unknown()), trust: { entries: "server", describe: (entry, key) => `${key}: ${String(entry)}` } } } });
    // @ts-expect-error only "inert" or { entries } are known
    definePlugin({ name: "bad", configSections: { mine: { schema: z.object({}), trust: "always" } } });
  });
});

describe("folder trust for embedders", () => {
  test("createHost takes trust; a prepared host reports it", async () => {
    expectTypeOf<CreateHostOptions["trust"]>().toEqualTypeOf<boolean | undefined>();
    const prepared = await prepareHost({ trust: false });
    expectTypeOf(prepared.trust).toEqualTypeOf<TrustReport>();
    expectTypeOf(prepared.trust.state).toEqualTypeOf<TrustState>();
    expectTypeOf(prepared.trust.skipped).toEqualTypeOf<readonly TrustItem[]>();
    expectTypeOf<TrustState>().toEqualTypeOf<"trusted" | "untrusted" | "changed">();
    await createHost({ trust: true });
  });
});
