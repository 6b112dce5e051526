/**
 * Type tests of what plugin authors write: inference works, wrong handlers do not compile. Checked by
 * vitest's typecheck (and by `npm run typecheck`); nothing here runs.
 */
import { describe, expectTypeOf, test } from "vitest";
import {
  defineCliCommand,
  definePlugin,
  definePluginHooks,
  defineTool,
  isCallTo,
  SyncHook,
  z,
  type BeforeToolCallDecision,
  type Plugin,
  type PluginContext,
  type PluginFactory,
  type PluginHost,
  type ToolCallInfo,
  type ToolResult,
} from "../../core/index.js";
import { createTestHost, scriptedProvider, type TestHost } from "../../core/testing.js";

const greet = defineTool({
  name: "greet",
  description: "Greet someone",
  input: z.object({ name: z.string(), times: z.number().optional() }),
  risk: "read",
  run: (input) => {
    expectTypeOf(input).toEqualTypeOf<{ name: string; times?: number }>();
    return `hi ${input.name}`;
  },
});

describe("definePlugin", () => {
  test("an object keeps its type; options from its schema type ctx.options", () => {
    const options = z.object({ greeting: z.string().default("Hello") });
    const p = definePlugin({
      name: "typed",
      options,
      setup(ctx) {
        expectTypeOf(ctx.options).toEqualTypeOf<{ greeting: string }>();
        expectTypeOf(ctx).toMatchTypeOf<PluginContext<{ greeting: string }>>();
      },
    });
    expectTypeOf(p).toMatchTypeOf<Plugin<{ greeting: string }>>();
  });

  test("a factory stays callable (no TS2349), with the options type it declares", () => {
    const factory = definePlugin((options: { level: number }) => ({ name: "f", tools: [greet] }));
    const made = factory({ level: 1 });
    expectTypeOf(made).toMatchTypeOf<Plugin<any>>();
    // @ts-expect-error: the options are typed
    factory({ level: "high" });
  });

  test("a schema and a factory: the factory gets the schema's output type", () => {
    const f = definePlugin(z.object({ refuse: z.array(z.string()).default([]) }), (opts) => {
      expectTypeOf(opts).toEqualTypeOf<{ refuse: string[] }>();
      return { name: "s" };
    });
    expectTypeOf(f).toMatchTypeOf<PluginFactory<{ refuse: string[] }>>();
  });

  test("wrong handlers do not compile", () => {
    // @ts-expect-error: beforeToolCall returns { deny } or { input }, not a string
    definePlugin({ name: "bad", beforeToolCall: () => "no" });
    // @ts-expect-error: afterToolCall returns a ToolResult
    definePlugin({ name: "bad2", afterToolCall: () => ({ output: 1 }) });
    // @ts-expect-error: a plugin needs a name
    definePlugin({ tools: [greet] });
    // @ts-expect-error: enforce is pre or post
    definePlugin({ name: "bad3", enforce: "first" });
    // @ts-expect-error: a tool's run gets its typed input
    defineTool({ name: "t", description: "d", input: z.object({ n: z.number() }), run: (i: { n: string }) => i.n });
  });
});

describe("hooks see typed, read-only calls", () => {
  test("isCallTo narrows the input to the tool's type", () => {
    const plugin = definePlugin({
      name: "policy",
      beforeToolCall(call): BeforeToolCallDecision | void {
        expectTypeOf(call.input).toEqualTypeOf<unknown>();
        if (isCallTo(call, greet)) {
          expectTypeOf(call).toEqualTypeOf<ToolCallInfo<{ name: string; times?: number }>>();
          expectTypeOf(call.input.name).toEqualTypeOf<string>();
          // @ts-expect-error: handed a read-only copy; a change is made by returning { input }
          call.input.name = "x";
          if (call.input.name === "nobody") return { deny: "no" };
          return { input: { ...call.input, name: call.input.name.trim() } };
        }
      },
      afterToolCall(result) {
        expectTypeOf(result.output).toEqualTypeOf<string>();
        const next: ToolResult = { ...result, output: result.output.toUpperCase() };
        return next;
      },
    });
    expectTypeOf(plugin.name).toEqualTypeOf<string>();
  });

  test("the host a plugin is handed cannot change the permission mode", () => {
    definePlugin({
      name: "p",
      setup(ctx) {
        expectTypeOf(ctx.host).toEqualTypeOf<PluginHost>();
        // @ts-expect-error: read-only for plugins
        ctx.host.permissionMode = "bypass";
        // @ts-expect-error: not on the plugin view
        ctx.host.setPermissionAsker(undefined);
        // @ts-expect-error: no raw hooks on the plugin view
        ctx.host.hooks;
        // @ts-expect-error: tap-only views have no taps
        ctx.hooks.beforeToolCall.taps;
      },
    });
  });
});

test("definePluginHooks: one set of hooks per host, typed", () => {
  const getHooks = definePluginHooks(() => ({ connected: new SyncHook<[string]>(["server"]) }));
  definePlugin({
    name: "offers",
    setup(ctx) {
      getHooks(ctx.host).connected.tap("me", (server) => expectTypeOf(server).toEqualTypeOf<string>());
    },
  });
});

test("defineCliCommand types option values", () => {
  defineCliCommand({
    name: "hello",
    description: "say hello",
    options: { loud: { type: "boolean" }, name: { type: "string", multiple: true } },
    run(ctx) {
      expectTypeOf(ctx.values.loud).toEqualTypeOf<boolean | undefined>();
      expectTypeOf(ctx.values.name).toEqualTypeOf<string[] | undefined>();
      return 0;
    },
  });
});

test("the testing entry", async () => {
  const t = await createTestHost({ plugins: [{ name: "x", tools: [greet] }], model: [{ toolCalls: [{ name: "greet", input: { name: "a" } }] }] });
  expectTypeOf(t).toEqualTypeOf<TestHost>();
  expectTypeOf(t.call).returns.resolves.toEqualTypeOf<ToolResult>();
  expectTypeOf(scriptedProvider([]).requests).toBeArray();
});
