/** The hook table is declared once (core/hooks/hooks.ts); every other part is derived, and an omission does not compile. */
import { describe, expectTypeOf, test } from "vitest";
import { ADAPTERS, type Adapters } from "../../core/hooks/hook-adapters.js";
import { SeriesHook } from "../../core/hooks/hook-entry.js";
import { HOOKS, type HookName, type HookTable, type PluginHooks, type RawHooks } from "../../core/hooks/hooks.js";
import type { ToolRegistrar } from "../../core/plugin-types.js";
import type { CompactAskedPoint, CompactOutcome, ModelErrorDecision, ModelErrorInfo, ModelTurnPoint } from "../../core/embed.js";
import type { Plugin } from "../../core/index.js";

describe("one hook table", () => {
  test("the table, the views and the plugin methods name the same hooks", () => {
    expectTypeOf<keyof HookTable>().toEqualTypeOf<HookName>();
    expectTypeOf<keyof PluginHooks>().toEqualTypeOf<HookName>();
    expectTypeOf<keyof RawHooks>().toEqualTypeOf<HookName>();
    expectTypeOf<keyof Adapters>().toEqualTypeOf<keyof typeof HOOKS>();
  });

  test("an adapter record that forgets a hook does not compile", () => {
    const { event: _event, ...rest } = ADAPTERS;
    // @ts-expect-error: `event` has no adapter
    const missing: Adapters = rest;
    expectTypeOf(missing).not.toBeAny();
  });

  test("an entry that forgets its failure policy or its timeout class does not compile", () => {
    // @ts-expect-error: no failure policy
    new SeriesHook<[ToolRegistrar]>({ args: ["tools"], timeout: "startup" });
    // @ts-expect-error: no timeout class
    new SeriesHook<[ToolRegistrar]>({ args: ["tools"], failure: "skip" });
    // @ts-expect-error: one argument name per argument the host passes
    new SeriesHook<[ToolRegistrar]>({ args: [], failure: "skip", timeout: "startup" });
  });

  test("the raw table is typed by what the host passes, the view by what a handler is handed", () => {
    expectTypeOf<Parameters<RawHooks["beforeToolCall"]["promise"]>[0]>().toHaveProperty("rewrite");
    expectTypeOf<Parameters<Parameters<HookTable["beforeToolCall"]["tap"]>[1]>[0]>().not.toHaveProperty("rewrite");
  });
});

describe("the context hooks (the compaction plugin's)", () => {
  test("each is handed its point, whose compact resolves with the outcome; only modelError answers", () => {
    expectTypeOf<Parameters<Parameters<HookTable["fitContext"]["tap"]>[1]>[0]>().toEqualTypeOf<ModelTurnPoint>();
    expectTypeOf<Parameters<Parameters<HookTable["modelError"]["tap"]>[1]>[0]>().toEqualTypeOf<ModelErrorInfo>();
    expectTypeOf<Parameters<Parameters<HookTable["compactAsked"]["tap"]>[1]>[0]>().toEqualTypeOf<CompactAskedPoint>();
    expectTypeOf<ReturnType<ModelTurnPoint["compact"]>>().toEqualTypeOf<Promise<CompactOutcome>>();
    expectTypeOf<ModelErrorDecision>().toEqualTypeOf<{ retry: true } | { note: string }>();
    const plugin: Plugin = { name: "p", modelError: () => ({ retry: true }), fitContext: async (point) => void point.chars };
    // @ts-expect-error: a modelError answer is { retry: true } or { note }
    const wrong: Plugin = { name: "q", modelError: () => ({ retry: "yes" }) };
    expectTypeOf(plugin).not.toBeAny();
    expectTypeOf(wrong).not.toBeAny();
  });
});
