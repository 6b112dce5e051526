/**
 * The `agents` registration kind, added as one entry of the kinds table (core/registry/kinds.ts): definitions are
 * checked with clear reasons, registered from a plugin object's `agents`, `ctx.agents.add` and
 * `registerAgents`, listed by `host.agents`, counted in the plugin's status and audited.
 */
import { afterAll, afterEach, describe, expect, test } from "vitest";
import type { AgentDefinition, Plugin } from "../../core/index.js";
import { HOOK_NAMES } from "../../core/hooks/hooks.js";
import { KIND_NAMES, pluralOf, registerHookOf } from "../../core/registry/kinds.js";
import { checkAgent } from "../../core/registry/registry-checks.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const NONE = { get: () => undefined, aliasOf: () => undefined };

const reviewer: AgentDefinition = {
  name: "code-reviewer",
  description: "Reviews a diff. Use after a change.",
  tools: ["Read", "grep"],
  disallowedTools: ["run_command"],
  model: "inherit",
  permissionMode: "plan",
  maxTurns: 5,
  skills: ["release-notes"],
  prompt: "You review code.",
  path: "/x/.claude/agents/code-reviewer.md",
  meta: { color: "blue" },
};

/** [case, definition, expected words in the reason] */
const BAD_AGENTS: [string, unknown, RegExp][] = [
  ["not an object", "explore", /expected an agent definition object, got string/],
  ["upper-case name", { ...reviewer, name: "Code-Reviewer" }, /invalid agent name "Code-Reviewer": lowercase letters, digits and single hyphens/],
  ["name with a double hyphen", { ...reviewer, name: "a--b" }, /invalid agent name "a--b"/],
  ["name too long", { ...reviewer, name: "a".repeat(65) }, /at most 64 characters/],
  ["missing name", { ...reviewer, name: undefined }, /invalid agent name undefined/],
  ["missing description", { ...reviewer, description: undefined }, /missing description/],
  ["blank description", { ...reviewer, description: "  " }, /missing description/],
  ["missing prompt", { ...reviewer, prompt: undefined }, /prompt .* must be a string, got undefined/],
  ["tools as a string", { ...reviewer, tools: "Read, Grep" }, /tools must be a list of names, got string/],
  ["an empty tool name", { ...reviewer, disallowedTools: [""] }, /disallowedTools must be a list of names/],
  ["skills with a number", { ...reviewer, skills: [1] }, /skills must be a list of names/],
  ["blank model", { ...reviewer, model: "" }, /model must be a model name, an alias or inherit/],
  ["unknown permission mode", { ...reviewer, permissionMode: "bypassPermissions" }, /invalid permissionMode "bypassPermissions": expected one of default, plan, acceptEdits, bypass/],
  ["zero turns", { ...reviewer, maxTurns: 0 }, /maxTurns must be a positive whole number/],
  ["fractional turns", { ...reviewer, maxTurns: 1.5 }, /maxTurns must be a positive whole number/],
  ["source not a string", { ...reviewer, source: 3 }, /source must be a string, got number/],
  ["meta an array", { ...reviewer, meta: [] }, /meta must be an object, got an array/],
];

describe("agent definitions (the registration gate's check)", () => {
  test.each(BAD_AGENTS)("refuses %s", (_case, def, reason) => {
    expect(checkAgent(def, NONE)?.reason).toMatch(reason);
  });

  test("accepts Claude Code's subagent shape, and the smallest one (name, description, prompt)", () => {
    expect(checkAgent(reviewer, NONE)).toBeUndefined();
    expect(checkAgent({ name: "explore", description: "Reads.", prompt: "" }, NONE)).toBeUndefined();
  });

  test("a name already held is refused, naming who holds it", () => {
    expect(checkAgent(reviewer, { get: () => ({ source: "project" }), aliasOf: () => undefined })?.reason).toBe("duplicate agent name: already registered by project");
  });
});

describe("the agents kind in a host", () => {
  test("a plugin object's agents, ctx.agents.add and registerAgents all register; host.agents lists frozen views", async () => {
    const plugin: Plugin = {
      name: "crew",
      agents: [reviewer],
      setup(ctx) {
        expect(ctx.agents.add({ name: "explore", description: "Reads the code.", prompt: "Explore.", source: "builtin" })).toBe(true);
      },
      registerAgents(agents) {
        agents.add({ name: "planner", description: "Plans.", prompt: "Plan." });
      },
    };
    const { host } = await testHost({ plugins: [plugin] });
    expect(host.agents.list().map((a) => a.name).sort()).toEqual(["code-reviewer", "explore", "planner"]);
    const view = host.agents.get("code-reviewer")!;
    expect(view).toEqual({ ...reviewer, source: "crew", plugin: "crew" });
    expect(Object.isFrozen(view) && Object.isFrozen(view.tools)).toBe(true);
    expect(host.agents.get("explore")).toMatchObject({ source: "builtin", plugin: "crew" });
    expect(host.agents.get("nobody")).toBeUndefined();
    // The registry keeps its own copy: changing the plugin's object later changes nothing.
    reviewer.tools!.push("write_file");
    expect(host.agents.get("code-reviewer")!.tools).toEqual(["Read", "grep"]);
    reviewer.tools!.pop();
    expect(host.plugins.find((p) => p.name === "crew")).toMatchObject({ agents: 3, tools: 0, skills: 0 });
  });

  test("a bad agent is reported with plugin, name and reason and audited; the plugin's other agents still load", async () => {
    const { host, audit } = await testHost({
      plugins: [{ name: "crew", agents: [{ ...reviewer, name: "Bad Name" }, { ...reviewer, maxTurns: -1, name: "looper" }, reviewer] }],
    });
    expect(host.agents.list().map((a) => a.name)).toEqual(["code-reviewer"]);
    const messages = host.problems.filter((p) => p.kind === "register").map((p) => p.message);
    expect(messages).toEqual([
      'Plugin crew: agent "Bad Name" rejected: invalid agent name "Bad Name": lowercase letters, digits and single hyphens, at most 64 characters',
      'Plugin crew: agent "looper" rejected: maxTurns must be a positive whole number',
    ]);
    const records = audit().filter((r) => r.kind === "register");
    expect(records.filter((r) => r.outcome === "rejected").map((r) => r.name)).toEqual(["Bad Name", "looper"]);
    expect(records.find((r) => r.outcome === "ok" && r.detail?.kind === "agent")).toMatchObject({ source: "crew", detail: { count: 1, names: ["code-reviewer"] } });
  });

  test("a second plugin cannot take or remove an agent's name; registered after startup, an agent is audited alone", async () => {
    let later: ((def: AgentDefinition) => boolean) | undefined;
    let removeOther: ((name: string) => boolean) | undefined;
    const { host, audit } = await testHost({
      plugins: [
        { name: "first", agents: [reviewer] },
        {
          name: "second",
          agents: [{ ...reviewer, description: "Another." }],
          setup(ctx) {
            later = (def) => ctx.agents.add(def);
            removeOther = (name) => ctx.agents.remove(name);
          },
        },
      ],
    });
    expect(host.agents.get("code-reviewer")).toMatchObject({ plugin: "first", description: reviewer.description });
    // A clash (two plugins' code-reviewer) is a warning, the first one winning; not a failed registration.
    expect(host.problems.filter((p) => p.message.includes("duplicate agent name"))).toEqual([
      expect.objectContaining({ level: "warning", message: 'Plugin second: agent "code-reviewer" rejected: duplicate agent name: already registered by first' }),
    ]);
    expect(removeOther!("code-reviewer")).toBe(false);
    expect(later!({ name: "late", description: "Comes later.", prompt: "…" })).toBe(true);
    expect(host.agents.get("late")).toMatchObject({ plugin: "second" });
    await host.close();
    expect(audit().find((r) => r.kind === "register" && r.name === "late")).toMatchObject({ source: "second", outcome: "ok", detail: { kind: "agent" } });
    expect(removeOther!("late")).toBe(true);
  });

  test("a plugin's view of the host lists agents too", async () => {
    let seen: string[] = [];
    const { host } = await testHost({
      plugins: [
        { name: "crew", agents: [reviewer] },
        { name: "reader", registerAgents: () => undefined, setup: (ctx) => void ctx.hooks.shutdown.tap("reader", () => void (seen = ctx.host.agents.list().map((a) => a.name))) },
      ],
    });
    await host.close();
    expect(seen).toEqual(["code-reviewer"]);
  });

  test("a plugin that fails in setup loses the agents it registered", async () => {
    const { host } = await testHost({
      plugins: [
        {
          name: "crashy",
          setup(ctx) {
            ctx.agents.add(reviewer);
            throw new Error("setup exploded");
          },
        },
      ],
    });
    expect(host.agents.list()).toEqual([]);
    expect(host.plugins.find((p) => p.name === "crashy")).toMatchObject({ status: "failed", agents: 0 });
  });

  test("registerAgents runs last of the register hooks, after registerSkills, in the kinds' order", async () => {
    const order: string[] = [];
    const plugin: Plugin = { name: "watch" };
    for (const kind of KIND_NAMES) Object.assign(plugin, { [registerHookOf(kind)]: () => void order.push(pluralOf(kind)) });
    await testHost({ plugins: [plugin] });
    expect(order).toEqual(["providers", "tools", "commands", "skills", "agents"]);
    const registerHooks = HOOK_NAMES.filter((h) => h.startsWith("register"));
    expect(registerHooks).toEqual(["registerProviders", "registerTools", "registerCommands", "registerSkills", "registerAgents"]);
    // The hook table's register entries are in the kinds' order (the compiler checks only that each is there).
    expect(registerHooks).toEqual(KIND_NAMES.map(registerHookOf));
    expect(HOOK_NAMES.indexOf("config")).toBeLessThan(HOOK_NAMES.indexOf("registerProviders"));
    expect(HOOK_NAMES.indexOf("registerAgents")).toBeLessThan(HOOK_NAMES.indexOf("sessionStart"));
  });
});
