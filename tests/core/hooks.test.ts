/** The hook table, plugin application order, handler error wrapping and registrar scoping. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { AsyncParallelHook, AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from "tapable";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { HOOK_NAMES, createHooks } from "../../core/hooks/hooks.js";
import { z, type Plugin, type ToolDefinition } from "../../core/index.js";
import { closeHosts, hostWithTools, testHost } from "../helpers/host.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const echo = (name = "echo", extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: "echo the text",
  input: z.object({ text: z.string() }),
  risk: "read",
  run: ({ text }: { text: string }) => text,
  ...extra,
});

describe("hook table", () => {
  const EXPECTED = {
    config: AsyncSeriesWaterfallHook,
    registerTools: AsyncSeriesHook,
    registerCommands: AsyncSeriesHook,
    registerSkills: AsyncSeriesHook,
    registerProviders: AsyncSeriesHook,
    registerAgents: AsyncSeriesHook,
    sessionStart: AsyncSeriesHook,
    userPromptSubmit: AsyncSeriesHook,
    sessionLoad: AsyncSeriesHook,
    systemPrompt: AsyncSeriesHook,
    beforeModelRequest: AsyncSeriesWaterfallHook,
    fitContext: AsyncSeriesHook,
    modelError: AsyncSeriesHook,
    permission: AsyncSeriesHook,
    permissionRequest: AsyncSeriesHook,
    beforeToolCall: AsyncSeriesBailHook,
    afterToolCall: AsyncSeriesWaterfallHook,
    stop: AsyncSeriesHook,
    subagentStart: AsyncParallelHook,
    subagentStop: AsyncParallelHook,
    compactAsked: AsyncSeriesHook,
    preCompact: AsyncSeriesHook,
    compact: AsyncSeriesHook,
    transcript: SyncHook,
    event: SyncHook,
    sessionEnd: AsyncParallelHook,
    shutdown: AsyncParallelHook,
  } as const;

  test("has every documented hook with the right tapable kind, and nothing else", () => {
    const hooks = createHooks();
    expect(Object.keys(hooks).sort()).toEqual(Object.keys(EXPECTED).sort());
    expect([...HOOK_NAMES].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [name, Kind] of Object.entries(EXPECTED)) {
      // tapable's hooks are factories that set `constructor` to the factory
      expect((hooks[name as keyof typeof hooks] as { constructor: unknown }).constructor, name).toBe(Kind);
    }
  });

  test("is frozen: hooks cannot be replaced, added or removed", () => {
    const hooks = createHooks() as unknown as Record<string, unknown>;
    expect(Object.isFrozen(hooks)).toBe(true);
    expect(() => {
      hooks.config = new SyncHook();
    }).toThrow(TypeError);
    expect(() => {
      hooks.extra = new SyncHook();
    }).toThrow(TypeError);
    expect(() => delete hooks.event).toThrow(TypeError);
  });

  test("each hook carries a doc comment naming its kind", () => {
    const source = readFileSync(path.join(REPO_ROOT, "core/hooks/hooks.ts"), "utf8");
    for (const [name, Kind] of Object.entries(EXPECTED)) {
      const m = new RegExp(`/\\*\\*\\s*([A-Za-z]+)\\([^\\n]*\\*/\\s*\\n\\s*${name}: new (\\w+)Hook`).exec(source);
      expect(m, `doc comment for ${name}`).not.toBeNull();
      const docKind = m![1];
      expect(`${docKind}Hook`, name).toBe(Kind.name);
    }
  });

  test("the host's hook table is frozen too, and each host gets its own", async () => {
    const a = await testHost();
    const b = await testHost();
    expect(Object.isFrozen(a.host.hooks)).toBe(true);
    expect(a.host.hooks.config).not.toBe(b.host.hooks.config);
  });
});

describe("plugin application order", () => {
  function recorder(log: string[], name: string, enforce?: "pre" | "post"): Plugin {
    return {
      name,
      enforce,
      setup() {
        log.push(`setup:${name}`);
      },
      config(c) {
        log.push(`config:${name}`);
        return { ...c, systemPrompt: `${c.systemPrompt ?? ""}${name}` };
      },
      registerTools() {
        log.push(`tools:${name}`);
      },
      event(e) {
        if (e.type === "notice" && e.source === "order") log.push(`event:${name}`);
      },
    };
  }

  test("config order, with enforce pre first and post last, for every hook", async () => {
    const log: string[] = [];
    const { host } = await testHost({
      config: { plugins: [recorder(log, "a"), recorder(log, "late", "post"), recorder(log, "b"), recorder(log, "early", "pre")] },
    });
    // setup runs in config order (enforce only orders hook handlers)
    expect(log.filter((l) => l.startsWith("setup:"))).toEqual(["setup:a", "setup:late", "setup:b", "setup:early"]);
    expect(log.filter((l) => l.startsWith("config:"))).toEqual(["config:early", "config:a", "config:b", "config:late"]);
    expect(log.filter((l) => l.startsWith("tools:"))).toEqual(["tools:early", "tools:a", "tools:b", "tools:late"]);
    // the waterfall passed each plugin's result to the next
    expect(host.config.systemPrompt).toBe("earlyablate");
    host.emit({ type: "notice", level: "info", source: "order", message: "x" });
    expect(log.filter((l) => l.startsWith("event:"))).toEqual(["event:early", "event:a", "event:b", "event:late"]);
  });

  test("handlers are tapped under the plugin's name: a failure names the plugin, not a name it chose", async () => {
    const { host } = await testHost({
      config: {
        plugins: [
          { name: "first", setup: (ctx) => ctx.hooks.registerTools.tap("not-first", () => { throw new Error("boom"); }) },
          { name: "second", enforce: "pre", registerTools: () => { throw new Error("bang"); } },
        ],
      },
    });
    expect(host.problems.map((p) => p.message)).toEqual(["Plugin second failed in registerTools: bang", "Plugin first failed in registerTools: boom"]);
  });

  test("built-in plugins are applied before config plugins, and createHost({ plugins }) after them", async () => {
    const log: string[] = [];
    await testHost({
      builtins: [{ name: "bi", load: async () => recorder(log, "builtin") }],
      config: { plugins: [recorder(log, "fromConfig")] },
      plugins: [recorder(log, "fromOptions")],
    });
    expect(log.filter((l) => l.startsWith("tools:"))).toEqual(["tools:builtin", "tools:fromConfig", "tools:fromOptions"]);
  });
});

describe("a plugin's throwing handler is wrapped and never takes the host down", () => {
  const boom = (where: string) => () => {
    throw new Error(`boom in ${where}`);
  };

  test("config: reported with plugin and hook, the other plugins' changes still apply", async () => {
    const { host } = await testHost({
      config: {
        plugins: [
          { name: "bad", config: boom("config") },
          { name: "good", config: (c) => ({ ...c, systemPrompt: "from good" }) },
        ],
      },
    });
    expect(host.config.systemPrompt).toBe("from good");
    expect(host.problems.map((p) => p.message)).toContain("Plugin bad failed in config: boom in config");
    expect(host.problems.find((p) => p.plugin === "bad")?.kind).toBe("plugin");
  });

  test("config: an async handler that rejects is wrapped the same way", async () => {
    const { host } = await testHost({
      config: {
        plugins: [
          {
            name: "bad",
            config: async () => {
              throw new Error("async boom");
            },
          },
        ],
      },
    });
    expect(host.problems.map((p) => p.message)).toContain("Plugin bad failed in config: async boom");
  });

  test("registerTools: reported and audited; tools added before the throw and other plugins' tools remain", async () => {
    const { host, audit } = await testHost({
      config: {
        plugins: [
          {
            name: "bad",
            registerTools(r) {
              r.add(echo("before_throw"));
              throw new Error("cannot list tools");
            },
          },
          { name: "good", tools: [echo("good_tool")] },
        ],
      },
    });
    expect(host.tools.list().map((t) => t.name).sort()).toEqual(["before_throw", "good_tool"]);
    expect(host.problems.map((p) => p.message)).toContain("Plugin bad failed in registerTools: cannot list tools");
    const rec = audit().find((r) => r.kind === "plugin" && r.source === "bad");
    expect(rec).toMatchObject({ outcome: "failed", error: "Plugin bad failed in registerTools: cannot list tools" });
  });

  test("beforeToolCall: fails closed (the call is denied, the tool does not run)", async () => {
    const run = vi.fn(() => "ran");
    const { host } = await hostWithTools([echo("t", { run })], { plugin: { beforeToolCall: boom("beforeToolCall") } });
    const r = await host.tools.call("t", { text: "x" });
    expect(r.ok).toBe(false);
    expect(r.outcome).toBe("denied");
    expect(r.error?.code).toBe("E_TOOL_DENIED");
    expect(r.output).toContain("plugin test failed in beforeToolCall (boom in beforeToolCall)");
    expect(run).not.toHaveBeenCalled();
    expect(host.problems.map((p) => p.message)).toContain("Plugin test failed in beforeToolCall: boom in beforeToolCall");
  });

  test("afterToolCall: the tool's result is kept", async () => {
    const { host } = await hostWithTools([echo("t")], { plugin: { afterToolCall: boom("afterToolCall") } });
    const r = await host.tools.call("t", { text: "kept" });
    expect(r).toMatchObject({ ok: true, outcome: "ok", output: "kept" });
    expect(host.problems.map((p) => p.message)).toContain("Plugin test failed in afterToolCall: boom in afterToolCall");
  });

  test("event: other handlers and host listeners still get the event; the call succeeds", async () => {
    const seen: string[] = [];
    const { host } = await testHost({
      config: {
        plugins: [
          { name: "bad", event: boom("event") },
          { name: "good", event: (e) => void seen.push(`good:${e.type}`) },
          { name: "tools", tools: [echo("t")] },
        ],
      },
    });
    host.on((e) => void seen.push(`listener:${e.type}`));
    const r = await host.tools.call("t", { text: "x" });
    expect(r.ok).toBe(true);
    expect(seen).toContain("good:tool_end");
    expect(seen).toContain("listener:tool_end");
    expect(host.problems.some((p) => p.message === "Plugin bad failed in event: boom in event")).toBe(true);
  });

  test("event: a handler that throws on every event is recorded once, not once per event", async () => {
    const { host, audit } = await testHost({ config: { plugins: [{ name: "bad", event: boom("event") }] } });
    for (let i = 0; i < 50; i++) host.emit({ type: "text_delta", text: "x" });
    expect(host.problems.filter((p) => p.plugin === "bad")).toHaveLength(1);
    expect(audit().filter((r) => r.kind === "plugin" && r.source === "bad")).toHaveLength(1);
  });

  test("shutdown: close() still resolves", async () => {
    const { host } = await testHost({ config: { plugins: [{ name: "bad", shutdown: boom("shutdown") }] } });
    await expect(host.close()).resolves.toBeUndefined();
    expect(host.problems.map((p) => p.message)).toContain("Plugin bad failed in shutdown: boom in shutdown");
  });

  test("an event handler that emits in a loop does not overflow the stack", async () => {
    let calls = 0;
    const { host } = await testHost({
      config: {
        plugins: [
          {
            name: "loopy",
            setup(ctx) {
              ctx.hooks.event.tap("loopy", (e) => {
                calls++;
                if (e.type === "notice") ctx.emit(e);
              });
            },
          },
        ],
      },
    });
    host.emit({ type: "notice", level: "info", source: "x", message: "again" });
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThan(20);
  });
});

describe("ctx.hooks: direct taps are scoped and wrapped like declared handlers", () => {
  test("tap, tapPromise and tapAsync are named after the plugin, whatever name is passed", async () => {
    const { host } = await hostWithTools([echo("t")], {
      plugins: [
        {
          name: "power",
          setup(ctx) {
            ctx.hooks.afterToolCall.tap("spoofed-name", (res) => ({ ...res, output: `${res.output}+tap` }));
            ctx.hooks.afterToolCall.tapPromise({ name: "other" }, async (res) => ({ ...res, output: `${res.output}+promise` }));
            ctx.hooks.afterToolCall.tapAsync("x", (res, _call, cb) => cb(null, { ...res, output: `${res.output}+async` }));
          },
        },
      ],
    });
    const r = await host.tools.call("t", { text: "v" });
    expect(r.output).toBe("v+tap+promise+async");
    // The view is tap-only: nothing of tapable's own surface is reachable through it.
    expect(Object.keys(host.hooks.afterToolCall).sort()).toEqual(["tap", "tapAsync", "tapPromise"]);
  });

  test("a throwing direct tap is wrapped with the plugin and hook name", async () => {
    const run = vi.fn(() => "ran");
    const { host } = await hostWithTools([echo("t", { run })], {
      plugins: [
        {
          name: "power",
          setup(ctx) {
            ctx.hooks.beforeToolCall.tap("x", () => {
              throw new Error("direct boom");
            });
            ctx.hooks.afterToolCall.tapAsync("y", (_res, _call, cb) => cb(new Error("callback boom")));
          },
        },
      ],
    });
    const r = await host.tools.call("t", { text: "x" });
    expect(r.outcome).toBe("denied");
    expect(run).not.toHaveBeenCalled();
    expect(host.problems.map((p) => p.message)).toContain("Plugin power failed in beforeToolCall: direct boom");
  });

  test("a tapAsync handler that calls back with an error is wrapped (afterToolCall keeps the result)", async () => {
    const { host } = await hostWithTools([echo("t")], {
      plugins: [
        {
          name: "power",
          setup(ctx) {
            ctx.hooks.afterToolCall.tapAsync("y", (_res, _call, cb) => cb(new Error("callback boom")));
          },
        },
      ],
    });
    const r = await host.tools.call("t", { text: "still here" });
    expect(r).toMatchObject({ ok: true, output: "still here" });
    expect(host.problems.map((p) => p.message)).toContain("Plugin power failed in afterToolCall: callback boom");
  });

  test("enforce applies to direct taps too", async () => {
    const order: string[] = [];
    await testHost({
      config: {
        plugins: [
          { name: "normal", setup: (ctx) => ctx.hooks.registerTools.tap("n", () => void order.push("normal")) },
          { name: "pre", enforce: "pre", setup: (ctx) => ctx.hooks.registerTools.tap("p", () => void order.push("pre")) },
        ],
      },
    });
    expect(order).toEqual(["pre", "normal"]);
  });
});

describe("register hooks receive a registrar scoped to the plugin", () => {
  test("tools, commands and skills are attributed to the plugin that added them", async () => {
    const { host, audit } = await testHost({
      config: {
        plugins: [
          {
            name: "alpha",
            registerTools: (r) => void r.add(echo("from_alpha")),
            registerCommands: (r) => void r.add({ name: "hello", description: "say hello", run: () => "hi" }),
            registerSkills: (r) => void r.add({ name: "alpha-skill", description: "a skill", content: "# body" }),
          },
          {
            name: "beta",
            setup(ctx) {
              ctx.hooks.registerTools.tapPromise("beta", async (r) => void r.add(echo("from_beta")));
              ctx.tools.add(echo("from_beta_setup"));
            },
          },
          { name: "gamma", tools: [echo("from_gamma", { source: "mcp:server" })] },
        ],
      },
    });
    expect(host.tools.get("from_alpha")).toMatchObject({ plugin: "alpha", source: "alpha" });
    expect(host.tools.get("from_beta")).toMatchObject({ plugin: "beta", source: "beta" });
    expect(host.tools.get("from_beta_setup")).toMatchObject({ plugin: "beta", source: "beta" });
    expect(host.tools.get("from_gamma")).toMatchObject({ plugin: "gamma", source: "mcp:server" });
    expect(host.commands.get("hello")).toMatchObject({ plugin: "alpha" });
    expect(host.skills.get("alpha-skill")).toMatchObject({ plugin: "alpha" });
    expect(host.plugins.find((p) => p.name === "alpha")).toMatchObject({ tools: 1, commands: 1, skills: 1 });
    expect(host.plugins.find((p) => p.name === "beta")).toMatchObject({ tools: 2 });
    const reg = audit().filter((r) => r.kind === "register" && r.outcome === "ok");
    expect(reg.find((r) => r.source === "beta")?.detail).toMatchObject({ kind: "tool", count: 2, names: ["from_beta_setup", "from_beta"] });
    expect(reg.find((r) => r.source === "mcp:server")?.detail).toMatchObject({ names: ["from_gamma"] });
  });

  test("a plugin cannot remove another plugin's tool through its registrar", async () => {
    let removedOther: boolean | undefined;
    let removedOwn: boolean | undefined;
    const { host } = await testHost({
      config: {
        plugins: [
          { name: "owner", tools: [echo("owned")] },
          {
            name: "thief",
            registerTools(r) {
              r.add(echo("mine"));
              removedOther = r.remove("owned");
              removedOwn = r.remove("mine");
            },
          },
        ],
      },
    });
    expect(removedOther).toBe(false);
    expect(removedOwn).toBe(true);
    expect(host.tools.list().map((t) => t.name)).toEqual(["owned"]);
    expect(host.plugins.find((p) => p.name === "thief")?.tools).toBe(0);
  });

  test("tools registered after startup are audited one record each", async () => {
    let later: ((d: ToolDefinition) => boolean) | undefined;
    const { host, audit } = await testHost({ config: { plugins: [{ name: "late", setup: (ctx) => void (later = ctx.tools.add) }] } });
    expect(later!(echo("late_tool"))).toBe(true);
    expect(host.tools.get("late_tool")?.plugin).toBe("late");
    await Promise.resolve(); // written by the microtask of its tick
    expect(audit().find((r) => r.kind === "register" && r.name === "late_tool")).toMatchObject({ source: "late", outcome: "ok" });
  });
});
