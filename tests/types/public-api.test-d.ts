/**
 * Type tests of what plugin authors write: inference works, wrong handlers do not compile. Checked by
 * vitest's typecheck (and by `npm run typecheck`); nothing here runs.
 */
import { describe, expectTypeOf, test } from "vitest";
import { defineCliCommand, definePlugin, definePluginHooks, defineTool, isCallTo, z, type BeforeToolCallDecision, type CompactInfo, type PermissionCheck, type PermissionPromptAnswer, type PermissionPromptInfo, type PermissionVote, type Plugin, type PluginAuditRecord, type SessionEndInfo, type SessionStartInfo, type StopInfo, type UserPromptInfo, type PluginContext, type PluginFactory, type ToolLoadResult, type ToolSource, type PluginHost, type ToolCallInfo, type ToolResult } from "../../core/index.js";
import { SyncHook } from "../../kit/index.js";
import { type ConfigOrigin, DEFAULT_PLUGIN_TIMEOUTS } from "../../core/embed.js";
import { denySubjects, opaqueReason, shellSubjects, type ScriptFiles, type ShellSubjectOptions } from "../../kit/index.js";
import { createTestHost, scriptedProvider, type TestHost } from "../../testing/index.js";

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
    // A tool that never calls tools may say so; the flag is a boolean.
    defineTool({ name: "leaf", description: "d", input: z.object({}), callsTools: false, run: () => "x" });
    // @ts-expect-error: callsTools is a boolean
    defineTool({ name: "leaf2", description: "d", input: z.object({}), callsTools: "no", run: () => "x" });
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

describe("the session, prompt and permission hooks", () => {
  test("handlers are typed by what they are handed and may return", () => {
    definePlugin({
      name: "all",
      sessionStart(s) {
        expectTypeOf(s).toEqualTypeOf<SessionStartInfo>();
        expectTypeOf(s.source).toEqualTypeOf<"startup" | "clear" | "resume">();
        return { context: "branch: main" };
      },
      userPromptSubmit(p) {
        expectTypeOf(p).toEqualTypeOf<UserPromptInfo>();
        return p.prompt.includes("secret") ? { block: "no secrets" } : { context: "more" };
      },
      permission(check) {
        expectTypeOf(check).toEqualTypeOf<PermissionCheck>();
        expectTypeOf(check.verdict.decision).toEqualTypeOf<"allow" | "ask" | "deny">();
        expectTypeOf(check.subjects).toEqualTypeOf<readonly string[] | undefined>();
        // @ts-expect-error: the check is read-only
        check.mode = "bypass";
        const vote: PermissionVote = { decision: "ask", reason: "double-check" };
        return vote;
      },
      permissionRequest(request) {
        expectTypeOf(request).toEqualTypeOf<PermissionPromptInfo>();
        expectTypeOf(request.answerable).toEqualTypeOf<boolean>();
        const answer: PermissionPromptAnswer = { decision: "deny", reason: "not now" };
        return answer;
      },
      stop(s) {
        expectTypeOf(s).toEqualTypeOf<StopInfo>();
        return s.stopHookActive ? undefined : { continue: "run the tests" };
      },
      preCompact(c) {
        expectTypeOf(c).toEqualTypeOf<CompactInfo>();
        return { block: "keep it" };
      },
      sessionEnd(s) {
        expectTypeOf(s).toEqualTypeOf<SessionEndInfo>();
        expectTypeOf(s.reason).toEqualTypeOf<"clear" | "close">();
      },
      setup(ctx) {
        expectTypeOf(ctx.stopRun).toEqualTypeOf<(reason: string) => boolean>();
        expectTypeOf(ctx.host.configOrigins).toEqualTypeOf<readonly ConfigOrigin[]>();
        const record: PluginAuditRecord = { kind: "hook", name: "PreToolUse", outcome: "ok", durationMs: 3, callId: "c1" };
        ctx.audit(record);
        ctx.report({ kind: "config", level: "warning", message: "not applied" });
        ctx.hooks.permission.tapPromise("v", async (c) => (c.verdict.by.startsWith("mode:") ? { decision: "allow" } : undefined));
        expectTypeOf(DEFAULT_PLUGIN_TIMEOUTS.callMs).toEqualTypeOf<number>();
      },
    });
  });

  test("wrong answers do not compile", () => {
    // @ts-expect-error: a vote's decision is allow, ask or deny
    definePlugin({ name: "b1", permission: () => ({ decision: "yes" }) });
    // @ts-expect-error: an answer is allow or deny (ask is what it answers)
    definePlugin({ name: "b2", permissionRequest: () => ({ decision: "ask" }) });
    // @ts-expect-error: userPromptSubmit blocks with a reason string
    definePlugin({ name: "b3", userPromptSubmit: () => ({ block: true }) });
    // @ts-expect-error: stop continues with a message for the model
    definePlugin({ name: "b4", stop: () => ({ continue: true }) });
  });
});

test("tools get config env for the processes they start", () => {
  defineTool({
    name: "make",
    description: "make",
    input: z.object({}),
    run: (_i, ctx) => {
      expectTypeOf(ctx.env).toEqualTypeOf<Readonly<Record<string, string>>>();
      return "ok";
    },
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

describe("tool sources", () => {
  test("addSource takes { name, provides, load, ready? }; host.tools.load resolves with loaded and pending", () => {
    definePlugin({
      name: "lazy",
      registerTools(tools) {
        expectTypeOf(tools.addSource).parameter(0).toEqualTypeOf<ToolSource>();
        tools.addSource({ name: "x:y", provides: (n) => n.startsWith("x__"), load: async () => {}, ready: () => false });
        // @ts-expect-error provides is required
        tools.addSource({ name: "x:z", load: async () => {} });
      },
      async setup(ctx) {
        expectTypeOf(await ctx.host.tools.load({ names: ["x__a"], waitMs: 10 })).toEqualTypeOf<ToolLoadResult>();
      },
    });
  });
});

import { changesAgentKey, type FileWrite, type PermissionRequest, type ProtectedWriteInfo, type WritesContext } from "../../core/index.js";

describe("protected paths", () => {
  test("writes tells the gate what a call writes: paths or FileWrite entries, sync or async, typed by the input", () => {
    defineTool({
      name: "save",
      description: "Save a file",
      risk: "write",
      input: z.object({ to: z.string(), text: z.string() }),
      permissionSubject: (i) => i.to,
      subjectKind: "path",
      writes(input, ctx) {
        expectTypeOf(input).toEqualTypeOf<{ to: string; text: string }>();
        expectTypeOf(ctx).toEqualTypeOf<WritesContext>();
        expectTypeOf(ctx.workspace.resolve).returns.toEqualTypeOf<string>();
        return [{ path: input.to, changesAgentKey: changesAgentKey(undefined, input.text) }];
      },
      run: () => "ok",
    });
    defineTool({
      name: "shell",
      description: "Run a line",
      input: z.object({ line: z.string() }),
      writes: async (i) => [i.line, { path: "out.log", cwd: "build", subject: i.line, uncertain: false, tree: false }],
      run: () => "ok",
    });
    defineTool({
      name: "lines",
      description: "Run a line",
      risk: "execute",
      input: z.object({ line: z.string() }),
      permissionSubject: (i) => i.line,
      readOnly(subjects) {
        expectTypeOf(subjects).toEqualTypeOf<readonly string[]>();
        return subjects.every((s) => s.startsWith("git status"));
      },
      run: () => "ok",
    });
    // @ts-expect-error changesAgentKey is a boolean
    const bad: FileWrite = { path: "x", changesAgentKey: "no" };
    void bad;
    // @ts-expect-error a write names its path
    const pathless: FileWrite = { subject: "x" };
    void pathless;
    expectTypeOf<PermissionRequest["protectedWrites"]>().toEqualTypeOf<readonly ProtectedWriteInfo[] | undefined>();
    expectTypeOf<ProtectedWriteInfo>().toEqualTypeOf<{ readonly path: string; readonly why: string }>();
    expectTypeOf(changesAgentKey).toEqualTypeOf<(before: string | undefined, after: string | undefined) => boolean>();
  });
});

describe("shell subjects for plugin tools", () => {
  test("a tool's permissionSubject gets the workspace; shellSubjects reads script files the line runs", () => {
    defineTool({
      name: "exec_line",
      description: "Run a line",
      input: z.object({ line: z.string() }),
      permissionSubject: (i, ctx) => shellSubjects(i.line, { files: { cwd: ctx.workspace.root, read: () => undefined } }),
      run: () => "ok",
    });
    expectTypeOf(shellSubjects).parameter(1).toEqualTypeOf<ShellSubjectOptions | undefined>();
    expectTypeOf<ScriptFiles["read"]>().toEqualTypeOf<(file: string) => string | undefined>();
    expectTypeOf(denySubjects).toEqualTypeOf<(subjects: readonly string[]) => string[]>();
    expectTypeOf(opaqueReason).toEqualTypeOf<(subjects: readonly string[]) => string | undefined>();
  });
});
