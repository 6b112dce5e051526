/** The registration kinds are declared once (core/registry/kinds.ts); every other part is derived, and an omission does not compile. */
import { describe, expectTypeOf, test } from "vitest";
import type { AgentDefinition, AgentRegistrar, CommandRegistrar, HookTable, ModelProvider, Plugin, PluginContext, PluginHost, ProviderRegistrar, RegisteredAgent, RegisteredSkill, SkillDefinition, SkillRegistrar, ToolDefinition, ToolRegistrar } from "../../core/index.js";
import type { PluginStatus } from "../../core/embed.js";
import { ADAPTERS, type Adapters } from "../../core/hooks/hook-adapters.js";
import type { HookName } from "../../core/hooks/hooks.js";
import { baseRegistrar, KindSpec } from "../../core/registry/kind-entry.js";
import type { KindArrays, KindCounts, KindListings, KindName, KindPlural, KindRegistrars, RegisterHookName, Registries } from "../../core/registry/kinds.js";
import { agentEntry, type AgentEntry } from "../../core/registry/registry.js";
import { checkAgent } from "../../core/registry/registry-checks.js";

describe("one kinds table", () => {
  test("the kinds are the five, and every derived record names each by its plural", () => {
    expectTypeOf<KindName>().toEqualTypeOf<"provider" | "tool" | "command" | "skill" | "agent">();
    expectTypeOf<KindPlural>().toEqualTypeOf<"providers" | "tools" | "commands" | "skills" | "agents">();
    expectTypeOf<keyof Registries>().toEqualTypeOf<KindPlural>();
    expectTypeOf<keyof KindRegistrars>().toEqualTypeOf<KindPlural>();
    expectTypeOf<keyof KindArrays>().toEqualTypeOf<KindPlural>();
    expectTypeOf<keyof KindListings>().toEqualTypeOf<KindPlural>();
    expectTypeOf<keyof KindCounts>().toEqualTypeOf<KindPlural>();
    expectTypeOf<RegisterHookName>().toEqualTypeOf<"registerProviders" | "registerTools" | "registerCommands" | "registerSkills" | "registerAgents">();
    expectTypeOf<RegisterHookName>().toMatchTypeOf<HookName>();
  });

  test("the public shapes stay as they were, and the agents kind is in each", () => {
    expectTypeOf<PluginContext["tools"]>().toEqualTypeOf<ToolRegistrar>();
    expectTypeOf<PluginContext["commands"]>().toEqualTypeOf<CommandRegistrar>();
    expectTypeOf<PluginContext["skills"]>().toEqualTypeOf<SkillRegistrar>();
    expectTypeOf<PluginContext["providers"]>().toEqualTypeOf<ProviderRegistrar>();
    expectTypeOf<PluginContext["agents"]>().toEqualTypeOf<AgentRegistrar>();
    expectTypeOf<Plugin["tools"]>().toEqualTypeOf<ToolDefinition[] | undefined>();
    expectTypeOf<Plugin["skills"]>().toEqualTypeOf<SkillDefinition[] | undefined>();
    expectTypeOf<Plugin["providers"]>().toEqualTypeOf<ModelProvider[] | undefined>();
    expectTypeOf<Plugin["agents"]>().toEqualTypeOf<AgentDefinition[] | undefined>();
    expectTypeOf<PluginHost["skills"]["list"]>().returns.toEqualTypeOf<RegisteredSkill[]>();
    // A skill's body is text, or a function that loads it on use (kit's skillBody reads either).
    expectTypeOf<SkillDefinition["content"]>().toEqualTypeOf<string | (() => Promise<string>)>();
    expectTypeOf<RegisteredSkill["content"]>().toEqualTypeOf<string | (() => Promise<string>)>();
    expectTypeOf<PluginHost["providers"]["get"]>().returns.toEqualTypeOf<ModelProvider | undefined>();
    expectTypeOf<PluginHost["agents"]["list"]>().returns.toEqualTypeOf<RegisteredAgent[]>();
    expectTypeOf<PluginHost["agents"]["get"]>().returns.toEqualTypeOf<RegisteredAgent | undefined>();
    expectTypeOf<PluginHost["tools"]>().toHaveProperty("call");
    expectTypeOf<PluginStatus["agents"]>().toEqualTypeOf<number>();
    expectTypeOf<PluginStatus["tools"]>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<Parameters<HookTable["registerAgents"]["tap"]>[1]>[0]>().toEqualTypeOf<AgentRegistrar>();
    expectTypeOf<Parameters<Parameters<HookTable["registerTools"]["tap"]>[1]>[0]>().toEqualTypeOf<ToolRegistrar>();
  });

  test("a kind that forgets its check, its entry builder or its registrar does not compile", () => {
    // @ts-expect-error: no check
    new KindSpec<AgentDefinition, AgentEntry, AgentRegistrar>({ entry: agentEntry, registrar: baseRegistrar });
    // @ts-expect-error: no entry builder
    new KindSpec<AgentDefinition, AgentEntry, AgentRegistrar>({ check: checkAgent, registrar: baseRegistrar });
    // @ts-expect-error: no registrar
    new KindSpec<AgentDefinition, AgentEntry, AgentRegistrar>({ check: checkAgent, entry: agentEntry });
    // @ts-expect-error: the base registrar is not a tool's (no addSource)
    new KindSpec<ToolDefinition, never, ToolRegistrar>({ check: checkAgent, entry: () => ({ name: "x", reason: "y" }), registrar: baseRegistrar });
  });

  test("a derived record that leaves out the agents kind does not compile", () => {
    const { registerAgents: _registerAgents, ...rest } = ADAPTERS;
    // @ts-expect-error: `registerAgents` has no adapter
    const missing: Adapters = rest;
    expectTypeOf(missing).not.toBeAny();
    // @ts-expect-error: no `agents` count
    const counts: KindCounts = { providers: 0, tools: 0, commands: 0, skills: 0 };
    expectTypeOf(counts).not.toBeAny();
    const noAgents = (r: Omit<KindRegistrars, "agents">) => r;
    // @ts-expect-error: a plugin context needs every kind's registrar
    const ctx: Pick<PluginContext, KindPlural> = noAgents({} as Omit<KindRegistrars, "agents">);
    expectTypeOf(ctx).not.toBeAny();
  });
});
