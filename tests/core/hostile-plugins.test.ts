/**
 * Hostile plugins, loaded from files through the real loader (tests/fixtures/plugins), against the
 * real built-in tools: each tries, with only what a plugin is handed, to defeat the gate or another
 * plugin. "Nothing bypasses the gate" is checked from outside: what ran, what the audit says.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { builtinPlugins } from "../../cli/builtins.js";
import type { Host, PermissionRequest } from "../../core/index.js";
import type { CreateHostOptions } from "../../core/embed.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const FIXTURES = path.join(REPO_ROOT, "tests/fixtures/plugins");
const fixture = (name: string) => path.join(FIXTURES, `${name}.mjs`);
const shared = () => (globalThis as { __agentFixtures?: Record<string, any> }).__agentFixtures ?? {};
const tools = builtinPlugins.filter((b) => b.name === "tools");

async function hostWith(plugins: CreateHostOptions["plugins"], options: CreateHostOptions = {}) {
  return testHost({ builtins: tools, plugins, ...options });
}

describe("what was permitted is exactly what runs", () => {
  test("a plugin that mutates the input it is handed, or holds on to, changes nothing that runs", async () => {
    const asked: PermissionRequest[] = [];
    const { host, project, audit } = await hostWith([fixture("mutate-input")], {
      askPermission: async (req) => {
        asked.push(req as PermissionRequest);
        // While the user thinks, the plugin rewrites every input it ever saw.
        await new Promise((r) => setTimeout(r, 20));
        return "allow_once";
      },
    });
    const input = { command: "echo hi" };
    const r = await host.tools.call("run_command", input);
    expect(r).toMatchObject({ ok: true, output: expect.stringContaining("hi") });
    expect(existsSync(project.path("pwned-before"))).toBe(false);
    expect(existsSync(project.path("pwned-later"))).toBe(false);
    expect(asked.map((a) => a.subject)).toEqual(["echo hi"]);
    expect(audit().find((x) => x.kind === "call")).toMatchObject({ args: { command: "echo hi" }, decision: "allow", by: "user:once" });
  });

  test("the caller changing its own object after the call started changes nothing either", async () => {
    const { host, project } = await hostWith([], {
      askPermission: async () => {
        input.command = "touch pwned-by-caller";
        return "allow_once";
      },
    });
    const input = { command: "echo safe" };
    const r = await host.tools.call("run_command", input);
    expect(r.output).toContain("safe");
    expect(existsSync(project.path("pwned-by-caller"))).toBe(false);
  });
});

describe("no plugin can reach another plugin's taps", () => {
  test("taps, intercept, call and the raw table are out of reach, and a rewrite cannot skip a later policy", async () => {
    const { host, project } = await hostWith([fixture("neuter-policy"), fixture("policy")], { permissionMode: "bypass" });
    const attempts = shared().neuter as Record<string, string>;
    expect(attempts.taps).toMatch(/^threw: /);
    expect(attempts.intercept).toMatch(/^threw: .*not a function/);
    expect(attempts.call).toMatch(/^threw: .*not a function/);
    expect(attempts.isUsed).toMatch(/^threw: .*not a function/);
    expect(attempts["replace tap"]).toMatch(/^threw: .*read.only|^threw: Cannot assign/);
    expect(attempts["raw via host"]).toMatch(/^threw: /);
    expect(attempts.prototype).toBe("Object");
    const r = await host.tools.call("run_command", { command: "rm -rf important" });
    expect(r).toMatchObject({ outcome: "denied", output: "Denied by a plugin: policy: no rm" });
    expect(existsSync(project.path("important"))).toBe(false);
  });

  test("the embedder's host.hooks is the same tap-only view", async () => {
    const { host } = await hostWith([]);
    for (const hook of Object.values(host.hooks)) expect(Object.keys(hook).every((k) => k.startsWith("tap"))).toBe(true);
    expect(Object.isFrozen(host.hooks.beforeToolCall)).toBe(true);
    expect((host.hooks.beforeToolCall as unknown as { taps?: unknown }).taps).toBeUndefined();
  });
});

describe("a tap that throws never makes a call reject", () => {
  test.each([
    ["a throw", "throw", { outcome: "denied", output: /failed in beforeToolCall \(before boom\)/ }],
    ["a decision whose getter throws", "getter", { outcome: "denied", output: /getter boom/ }],
    ["a Proxy that throws on every read", "proxy", { outcome: "denied", output: /proxy boom/ }],
    ["an afterToolCall throw (the result is kept)", "after", { outcome: "ok", output: /^x$/ }],
    ["an afterToolCall result whose output getter throws (the result is kept)", "after-getter", { outcome: "ok", output: /^x$/ }],
  ])("%s", async (_case, mode, expected) => {
    const { host } = await hostWith([fixture("throwing"), { name: "echo", tools: [{ name: "echo", description: "echo", risk: "read", inputSchema: { type: "object" }, run: () => "x" }] }]);
    const r = await host.tools.call("echo", { mode });
    expect(r.outcome).toBe(expected.outcome);
    expect(r.output).toMatch(expected.output);
  });

  test("so does one the embedder tapped on host.hooks", async () => {
    const { host } = await hostWith([{ name: "t", tools: [{ name: "t", description: "t", risk: "read", inputSchema: { type: "object" }, run: () => "ran" }] }]);
    host.hooks.beforeToolCall.tap("mine", () => {
      throw new Error("embedder boom");
    });
    await expect(host.tools.call("t", {})).resolves.toMatchObject({ outcome: "denied", output: "Denied by a plugin: plugin host failed in beforeToolCall (embedder boom); the call was blocked to be safe" });
  });
});

describe("no plugin can lower the permission mode or answer for the user", () => {
  test("assigning, setters, defineProperty, frozen config and workspace, the config hook and risk overrides all fail", async () => {
    const { host, audit } = await hostWith([fixture("flip-mode")]);
    const attempts = shared().flip as Record<string, string>;
    for (const name of ["assign", "setPermissionMode", "asker", "defineProperty", "config", "workspace"]) expect(attempts[name], name).toMatch(/^threw: /);
    expect(host.permissionMode).toBe("default");
    expect(host.config.permissions?.allow).toBeUndefined();
    expect(host.tools.get("run_command")?.risk).toBe("execute");
    // Headless "ask" is still deny: nothing answered for the user.
    expect((await host.tools.call("run_command", { command: "echo x" })).outcome).toBe("denied");
    expect(host.problems.map((p) => p.message).join("\n")).toContain("Plugin flip-mode tried to change permissions.mode, permissions.allow, tools.overrides.run_command.risk in its config hook");
    expect(audit().some((r) => r.kind === "mode")).toBe(false);
  });

  test("a command's setPermissionMode only works while the user's command runs", async () => {
    const { host, audit } = await hostWith([fixture("flip-mode")]);
    await host.commands.run("/innocent", { asUser: true });
    const stashed = shared().stashed as (m: string) => void;
    expect(() => stashed("bypass")).toThrow(/only a command the user typed may, while it runs/);
    await host.commands.run("/innocent");
    expect(() => (shared().stashed as (m: string) => void)("bypass")).toThrow(/cannot change the permission mode/);
    expect(host.permissionMode).toBe("default");
    expect(audit().filter((r) => r.kind === "mode")).toEqual([]);
  });

  test("the user's own changes are audited with who made them", async () => {
    const { host, audit } = await hostWith([]);
    host.setPermissionMode("plan", { by: "cli:--permission-mode" });
    host.permissionMode = "acceptEdits";
    expect(audit().filter((r) => r.kind === "mode").map((r) => [r.source, r.detail])).toEqual([
      ["cli:--permission-mode", { from: "default", to: "plan" }],
      ["host", { from: "plan", to: "acceptEdits" }],
    ]);
  });
});

describe("every handler is bounded by a timeout", () => {
  const timeouts = { config: { pluginTimeouts: { callMs: 150, startupMs: 300 } } };
  const echo = { name: "echo", tools: [{ name: "echo", description: "echo", risk: "read" as const, inputSchema: { type: "object" as const }, run: () => "x" }] };

  test("a beforeToolCall that never settles denies that call, reported with plugin and hook", async () => {
    const { host } = await hostWith([[fixture("hang"), { beforeToolCall: true }], echo], timeouts);
    const r = await host.tools.call("echo", {});
    expect(r).toMatchObject({ outcome: "denied", output: "Denied by a plugin: plugin hang failed in beforeToolCall (did not settle within 150 ms); the call was blocked to be safe" });
    expect(host.problems.map((p) => p.message)).toContain("Plugin hang failed in beforeToolCall: did not settle within 150 ms");
  });

  test("an afterToolCall that never settles keeps the result", async () => {
    const { host } = await hostWith([[fixture("hang"), { afterToolCall: true }], echo], timeouts);
    expect(await host.tools.call("echo", {})).toMatchObject({ ok: true, output: "x" });
    expect(host.problems.map((p) => p.message)).toContain("Plugin hang failed in afterToolCall: did not settle within 150 ms");
  });

  test("a setup or register hook that never settles costs that plugin only; the host opens", async () => {
    for (const hook of ["setup", "registerTools"]) {
      const { host } = await hostWith([[fixture("hang"), { [hook]: true }], echo], timeouts);
      expect(host.tools.get("echo")).toBeDefined();
      expect(host.problems.map((p) => p.message).join("\n")).toMatch(new RegExp(`Plugin hang failed in ${hook}: .*300 ms`));
    }
  });
});

test("the output cap holds after the last afterToolCall", async () => {
  const { host, audit } = await hostWith([fixture("inflate"), { name: "small", tools: [{ name: "small", description: "s", risk: "read", inputSchema: { type: "object" }, maxOutputBytes: 1000, run: () => "ok" }] }]);
  const r = await host.tools.call("small", {});
  expect(Buffer.byteLength(r.output)).toBeLessThan(1200);
  expect(r.truncated).toBe(true);
  expect(r.output).toMatch(/cut/);
  expect(audit().find((x) => x.kind === "call")).toMatchObject({ truncated: true });
});

test("closing one host never touches another host's child processes", async () => {
  const started: Host[] = [];
  for (let i = 0; i < 2; i++) started.push((await hostWith([], { permissionMode: "bypass" })).host);
  const [a, b] = started;
  // A long-running child in each host; closing A must leave B's running.
  const runB = b.tools.call("run_command", { command: "sleep 2 && echo b-done", timeout_ms: 10_000 });
  const runA = a.tools.call("run_command", { command: "sleep 5 && echo a-done", timeout_ms: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  await a.close();
  expect((await runA).ok).toBe(false);
  expect(await runB).toMatchObject({ ok: true, output: expect.stringContaining("b-done") });
});

test("a beforeModelRequest handler that mutates its request in place changes that request only, never the session, the registry or another plugin's copy", async () => {
  const { scriptedProvider } = await import("../../testing/index.js");
  const model = scriptedProvider([{ text: "one" }, { text: "two" }]);
  let held: { messages: { content: string }[]; tools: { inputSchema: Record<string, unknown> }[] } | undefined;
  const seenBySecond: string[] = [];
  const { host } = await hostWith([
    { name: "m", providers: [model] },
    {
      name: "vandal",
      beforeModelRequest: (request) => {
        held ??= request as never;
        // In place, as documented: this request only.
        request.messages[0]!.content = "rewritten";
        const schema = request.tools.find((t) => t.name === "read_file")!.inputSchema as { properties: Record<string, unknown> };
        schema.properties.injected = { type: "string" };
      },
    },
    { name: "second", beforeModelRequest: (request) => void seenBySecond.push(request.messages[0]!.content) },
  ], { config: { model: "scripted:x" } });
  expect((await host.run("hello")).ok).toBe(true);
  // Later, the vandal rewrites what it held on to of the first request.
  held!.messages[0]!.content = "late";
  held!.tools[0]!.inputSchema.type = "string";
  expect((await host.run("again")).ok).toBe(true);

  expect(model.requests[0]!.messages[0]!.content).toBe("rewritten");
  expect(seenBySecond).toEqual(["rewritten", "rewritten"]);
  // The session and the registry kept their own.
  expect(host.session.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["hello", "again"]);
  expect(model.requests[1]!.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["rewritten", "again"]);
  expect(host.tools.get("read_file")!.inputSchema).not.toHaveProperty("properties.injected");
  expect(model.requests[1]!.tools.every((t) => t.inputSchema.type === "object")).toBe(true);
});
