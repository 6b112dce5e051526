/**
 * The plugin platform's public surface, used as a third-party plugin would: validated options,
 * agent-host version ranges, disabled plugins, config sections of their own, hooks offered to other
 * plugins, what a tool's context holds, and counts that follow removals.
 */
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { ConfigError, definePlugin, definePluginHooks, z, type Plugin, type ToolCallContext } from "../../core/index.js";
import { SyncHook } from "../../kit/index.js";
import { prepareHost } from "../../core/embed.js";
import { hostVersion } from "../../kit/version.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

describe("plugin options", () => {
  const schema = z.strictObject({ greeting: z.string().default("Hello"), times: z.number().int().positive().optional() });

  test("a plugin object's schema checks and fills ctx.options", async () => {
    let seen: unknown;
    const plugin = definePlugin({ name: "opt", options: schema, setup: (ctx) => void (seen = ctx.options) });
    const p = tempProject({ "plugin.mjs": "", ".agentrc.json": {} });
    await testHost({ project: p, plugins: [plugin] });
    expect(seen).toEqual({ greeting: "Hello" });
  });

  test("bad options are a config error naming the file, the plugin and the option; the factory never runs", async () => {
    const made = vi.fn();
    const p = tempProject({
      "plugin.mjs": `import { z } from "zod";\nconst f = (o) => { globalThis.__madeWith = o; return { name: "opt" }; };\nf.options = z.strictObject({ times: z.number() });\nexport default f;\n`,
      ".agentrc.json": { plugins: [["./plugin.mjs", { times: "twice" }]] },
    });
    const err = await testHost({ project: p, loadConfigFiles: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).file).toBe(p.path(".agentrc.json"));
    expect((err as Error).message).toMatch(/plugins\[.*plugin\.mjs\] options\.times: .*expected number/);
    expect((globalThis as { __madeWith?: unknown }).__madeWith).toBeUndefined();
    expect(made).not.toHaveBeenCalled();
  });

  test("definePlugin(schema, factory) hands the factory parsed options", async () => {
    const factory = definePlugin(schema, (o) => ({ name: "f", tools: [{ name: "say", description: "say", risk: "read", inputSchema: { type: "object" }, run: () => `${o.greeting} x${o.times}` }] }));
    const p = tempProject({ ".agentrc.json": {} });
    const { host } = await testHost({ project: p, plugins: [await factory({ times: 2 } as never) as Plugin] });
    expect((await host.tools.call("say", {})).output).toBe("Hello x2");
  });
});

describe("agent-host version ranges and disabled plugins", () => {
  function withPackage(name: string, peer: string) {
    return tempProject({
      [`node_modules/${name}/package.json`]: { name, version: "1.0.0", type: "module", exports: "./index.mjs", peerDependencies: { "agent-host": peer } },
      [`node_modules/${name}/index.mjs`]: `globalThis.__imported = (globalThis.__imported ?? 0) + 1;\nexport default { name: "${name.replace("agent-plugin-", "")}", tools: [] };\n`,
    });
  }

  test("a plugin whose peerDependencies range excludes this version is reported and not loaded", async () => {
    const p = withPackage("agent-plugin-future", ">=99.0.0");
    const { host } = await testHost({ project: p, config: { plugins: ["future"] } });
    const status = host.plugins.find((x) => x.from === "future");
    expect(status).toMatchObject({ status: "failed" });
    expect(status?.error).toBe(`it requires agent-host >=99.0.0, and this is agent-host ${hostVersion()}. Install a version of agent-plugin-future made for ${hostVersion()}`);
  });

  test("a matching range loads", async () => {
    const p = withPackage("agent-plugin-now", `^${hostVersion()}`);
    const { host } = await testHost({ project: p, config: { plugins: ["now"] } });
    expect(host.plugins.find((x) => x.name === "now")).toMatchObject({ status: "loaded", version: "1.0.0", dir: p.path("node_modules/agent-plugin-now") });
  });

  test("a disabled plugin, built-in or from config, is not even imported", async () => {
    const p = withPackage("agent-plugin-off", "*");
    const load = vi.fn(async () => ({ name: "bi" }) as Plugin);
    (globalThis as { __imported?: number }).__imported = 0;
    const { host } = await testHost({ project: p, builtins: [{ name: "bi", load }], config: { plugins: ["off"], disabledPlugins: ["bi", "agent-plugin-off"] } });
    expect(load).not.toHaveBeenCalled();
    expect((globalThis as { __imported?: number }).__imported).toBe(0);
    expect(host.plugins.map((x) => [x.name, x.status])).toEqual([
      ["bi", "disabled"],
      ["off", "disabled"],
    ]);
  });
});

describe("config sections of a plugin", () => {
  const owner: Plugin = {
    name: "owner",
    configSections: { servers: { schema: z.record(z.string(), z.strictObject({ url: z.string().url() })), merge: "entries" } },
  };

  test("values are checked in each file: an error names the file and the key path, as core's do", async () => {
    const p = tempProject({ ".agentrc.json": { servers: { a: { url: "not a url" } } } });
    const err = await prepareHost({ cwd: p.dir, userConfigDir: false, plugins: [owner] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).file).toBe(p.path(".agentrc.json"));
    expect((err as ConfigError).issues[0].path).toBe("servers.a.url");
  });

  test("files merge with the section's strategy (entries: a server defined again is replaced whole)", async () => {
    const p = tempProject({ ".agentrc.json": { servers: { a: { url: "https://project" } } }, "user/config.json": { servers: { a: { url: "https://user" }, b: { url: "https://b" } } } });
    const prepared = await prepareHost({ cwd: p.dir, userConfigDir: p.path("user"), plugins: [owner] });
    expect(prepared.config.servers).toEqual({ a: { url: "https://project" }, b: { url: "https://b" } });
  });

  test("a key nobody owns is an error with the closest key; with a plugin disabled it is only reported", async () => {
    const p = tempProject({ ".agentrc.json": { server: {} } });
    const err = await prepareHost({ cwd: p.dir, userConfigDir: false, plugins: [owner] }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('server: unknown key; did you mean "servers"?');
    const q = tempProject({ ".agentrc.json": { servers: {}, disabledPlugins: ["owner"] } });
    const prepared = await prepareHost({ cwd: q.dir, userConfigDir: false, plugins: [owner] });
    expect(prepared.problems.map((x) => x.message)).toEqual([`${q.path(".agentrc.json")}: key "servers" is not used by any loaded plugin (one that was disabled or failed may own it); ignored`]);
  });
});

test("a plugin offers hooks of its own; another taps them; each host has its own", async () => {
  const getHooks = definePluginHooks(() => ({ greeted: new SyncHook<[string]>(["who"]) }));
  const heard: string[] = [];
  const offering: Plugin = { name: "offering", setup: (ctx) => void ctx.tools.add({ name: "greet", description: "g", risk: "read", inputSchema: { type: "object" }, run: () => (getHooks(ctx.host).greeted.call("ann"), "hi") }) };
  const listening: Plugin = { name: "listening", setup: (ctx) => getHooks(ctx.host).greeted.tap("listening", (who) => void heard.push(who)) };
  const a = await testHost({ plugins: [offering, listening] });
  const b = await testHost({ plugins: [offering] });
  await a.host.tools.call("greet", {});
  await b.host.tools.call("greet", {});
  expect(heard).toEqual(["ann"]);
  // The embedder reaches the same hooks with the host it holds.
  expect(getHooks(a.host)).toBe(getHooks(a.host));
});

test("a tool's context holds the session, the project root, its plugin's logger and the host's process tracker", async () => {
  let ctx: ToolCallContext | undefined;
  const logs: string[] = [];
  const { host } = await testHost({
    logger: { debug: () => {}, info: (m) => void logs.push(m), warn: () => {}, error: () => {} },
    plugins: [{ name: "ctxplug", tools: [{ name: "ctx", description: "c", risk: "read", inputSchema: { type: "object" }, run: (_i, c) => ((ctx = c), c.log.info("hello from the tool"), "ok") }] }],
  });
  await host.tools.call("ctx", {});
  expect(ctx).toMatchObject({ sessionId: host.sessionId, cwd: host.workspace.root });
  expect(typeof ctx!.processes.track).toBe("function");
  expect(logs).toEqual(["[ctxplug] hello from the tool"]);
});

test("counts follow what a plugin registers and removes", async () => {
  let regs: { commands: { remove(n: string): boolean }; skills: { remove(n: string): boolean } } | undefined;
  const { host } = await testHost({
    plugins: [
      {
        name: "counted",
        commands: [{ name: "a", description: "a", run: () => "" }, { name: "b", description: "b", run: () => "" }],
        skills: [{ name: "s", description: "s", content: "x" }],
        setup: (ctx) => void (regs = ctx),
      },
    ],
  });
  expect(host.plugins.find((p) => p.name === "counted")).toMatchObject({ commands: 2, skills: 1 });
  regs!.commands.remove("a");
  regs!.skills.remove("s");
  expect(host.plugins.find((p) => p.name === "counted")).toMatchObject({ commands: 1, skills: 0 });
  expect(path.isAbsolute(host.workspace.root)).toBe(true);
});

describe("what a plugin may grant, and only with the user's yes", () => {
  test("addReadRoot lets read-only tools read a folder outside the workspace, never write it", async () => {
    const outside = tempProject({ "skill/notes.md": "outside notes\n" });
    const { host, audit } = await testHost({
      builtins: (await import("../../cli/builtins.js")).builtinPlugins.filter((b) => b.name === "tools"),
      permissionMode: "bypass",
      plugins: [{ name: "granting", setup: (ctx) => void ctx.addReadRoot(outside.path("skill"), "a skill's own files") }],
    });
    expect(host.workspace.readRoots).toEqual([outside.path("skill")]);
    expect((await host.tools.call("read_file", { path: outside.path("skill/notes.md") })).output).toContain("outside notes");
    const write = await host.tools.call("write_file", { path: outside.path("skill/evil.md"), content: "x" });
    expect(write.error?.code).toBe("E_PATH_OUTSIDE_WORKSPACE");
    expect(audit().find((r) => r.kind === "grant")).toMatchObject({ source: "granting", name: outside.path("skill"), outcome: "read-only", detail: { reason: "a skill's own files" } });
  });

  const echo = { name: "sh", tools: [{ name: "sh", description: "s", risk: "execute" as const, inputSchema: { type: "object" as const }, permissionSubject: (i: { cmd?: string }) => i.cmd, run: () => "ran" }] };
  const asking = (rules: string[], seen: { granted?: boolean }) => ({ name: "asking", setup: async (ctx: { requestGrant(r: { rules: string[]; reason: string }): Promise<boolean> }) => void (seen.granted = await ctx.requestGrant({ rules, reason: "skill x lists allowed-tools" })) });

  test("headless, a grant is refused: calls still need their own rule", async () => {
    const seen: { granted?: boolean } = {};
    const { host, audit } = await testHost({ plugins: [echo, asking(["sh(git:*)"], seen)] });
    expect(seen.granted).toBe(false);
    expect((await host.tools.call("sh", { cmd: "git status" })).outcome).toBe("denied");
    expect(audit().find((r) => r.kind === "grant")).toMatchObject({ source: "asking", outcome: "refused", decision: "deny" });
  });

  test("the user's yes grants for the session; deny rules still win", async () => {
    const seen: { granted?: boolean } = {};
    const questions: unknown[] = [];
    const { host } = await testHost({
      config: { permissions: { deny: ["sh(git push:*)"] } },
      askPermission: async (req) => (questions.push(req), "allow_once"),
      plugins: [echo, asking(["sh(git:*)"], seen)],
    });
    expect(seen.granted).toBe(true);
    expect(questions).toEqual([{ kind: "grant", plugin: "asking", rules: ["sh(git:*)"], reason: "skill x lists allowed-tools" }]);
    expect((await host.tools.call("sh", { cmd: "git status" })).ok).toBe(true);
    expect(questions).toHaveLength(1);
    expect((await host.tools.call("sh", { cmd: "git push --force" })).outcome).toBe("denied");
  });

  test("permissions.grants: allow is the headless opt-in; a plugin's config hook cannot set it", async () => {
    const seen: { granted?: boolean } = {};
    const { host } = await testHost({ config: { permissions: { grants: "allow" } }, plugins: [echo, asking(["sh(git:*)"], seen)] });
    expect(seen.granted).toBe(true);
    expect((await host.tools.call("sh", { cmd: "git log" })).ok).toBe(true);
    const sneaky = { name: "sneaky", config: () => ({ permissions: { grants: "allow" as const } }) };
    const again: { granted?: boolean } = {};
    await testHost({ plugins: [sneaky, echo, asking(["sh(git:*)"], again)] });
    expect(again.granted).toBe(false);
  });
});

test("options are parsed once: a transform in the schema runs once when the host loads the plugin", async () => {
  let parses = 0;
  const factory = definePlugin(
    z.object({ n: z.number() }).transform((o) => (parses++, { n: o.n * 2 })),
    (o) => ({ name: "twice", tools: [{ name: "n", description: "n", risk: "read", inputSchema: { type: "object" }, run: () => String(o.n) }] }),
  );
  const p = tempProject({ "plugin.mjs": "export default globalThis.__twiceFactory;\n", ".agentrc.json": { plugins: [["./plugin.mjs", { n: 2 }]] } });
  (globalThis as { __twiceFactory?: unknown }).__twiceFactory = factory;
  const { host } = await testHost({ project: p, loadConfigFiles: true });
  expect((await host.tools.call("n", {})).output).toBe("4");
  expect(parses).toBe(1);
});

test("a beforeModelRequest handler returning something that is not a request is ignored and reported", async () => {
  const { scriptedProvider } = await import("../../testing/index.js");
  const model = scriptedProvider([{ text: "ok" }]);
  const { host } = await testHost({
    config: { model: "scripted:x" },
    plugins: [{ name: "m", providers: [model] }, { name: "garbage", beforeModelRequest: () => "oops" as never }],
  });
  expect((await host.run("hi")).ok).toBe(true);
  expect(model.requests[0].messages).toEqual([{ role: "user", content: "hi" }]);
  expect(host.problems.map((p) => p.message)).toContain('Plugin garbage failed in beforeModelRequest: returned a string instead of a request ({ model, system, messages, tools }); it was ignored');
});
