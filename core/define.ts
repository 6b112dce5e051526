/** `defineX` helpers: identity functions (or nearly) that give plugin authors full type inference. */
import type { z } from "zod";
import type { CliCommand, CliOption } from "./cli-types.js";
import type { AgentConfig } from "./config/config-schema.js";
import { hostKey } from "./host/host-view.js";
import type { PluginHost } from "./host-types.js";
import type { ModelProvider } from "./loop/model.js";
import type { Plugin, PluginFactory, ToolCallInfo } from "./plugin-types.js";
import type { CommandDefinition, SkillDefinition, ToolDefinition } from "./types.js";

/** @internal The factory `definePlugin(schema, factory)` wraps. */
export const RAW_FACTORY = Symbol.for("agent-host.rawFactory");

/** A plugin object; with an `options` schema, `ctx.options` in `setup` has the schema's type. */
export function definePlugin<O = Record<string, unknown>>(plugin: Plugin<O>): Plugin<O>;
/** A factory called with the options from config. */
export function definePlugin<F extends (options: any) => Plugin<any> | Promise<Plugin<any>>>(factory: F): F;
/** A factory whose options are checked against `schema` first (bad options are a config error naming the key). */
export function definePlugin<S extends z.ZodType, P extends Plugin<any>>(
  schema: S,
  factory: (options: z.output<S>) => P | Promise<P>,
): PluginFactory<z.output<S>>;
export function definePlugin(a: unknown, b?: unknown): unknown {
  // Called directly (in a test, by another plugin), the factory still gets checked, defaulted options;
  // the loader, which has checked them already, calls the factory itself (a transform runs once).
  if (typeof b === "function") {
    const checked = (options: unknown) => (b as (o: unknown) => unknown)((a as z.ZodType).parse(options ?? {}));
    return Object.assign(checked, { options: a, [RAW_FACTORY]: b });
  }
  return a;
}

/** Define a tool; the input type is inferred from the zod schema. */
export function defineTool<I>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return tool;
}

export function defineCommand(command: CommandDefinition): CommandDefinition {
  return command;
}

export function defineSkill(skill: SkillDefinition): SkillDefinition {
  return skill;
}

export function defineProvider(provider: ModelProvider): ModelProvider {
  return provider;
}

export function defineConfig(config: AgentConfig): AgentConfig {
  return config;
}

/** A CLI subcommand (`agent <name> …`); option values are typed from `options`. */
export function defineCliCommand<O extends Record<string, CliOption> = Record<string, never>>(command: CliCommand<O>): CliCommand<O> {
  return command;
}

/**
 * Tool names whose input types plugins declare, for `isCallTo(call, "name")`:
 * `declare module "agent-host" { interface ToolInputs { my_tool: { path: string } } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ToolInputs {}

/**
 * Whether a `beforeToolCall` / `afterToolCall` call is to `tool` (a definition, whose input type it
 * takes, or a name): narrows `call.input` to that tool's input type.
 */
export function isCallTo<I>(call: ToolCallInfo, tool: ToolDefinition<I>): call is ToolCallInfo<I>;
export function isCallTo<K extends keyof ToolInputs>(call: ToolCallInfo, name: K): call is ToolCallInfo<ToolInputs[K]>;
export function isCallTo(call: ToolCallInfo, name: string): boolean;
export function isCallTo(call: ToolCallInfo, tool: string | ToolDefinition): boolean {
  return call.tool.name === (typeof tool === "string" ? tool : tool.name);
}

/**
 * Hooks a plugin offers to other plugins (webpack's `getCompilationHooks(compilation)`): one set per
 * host, made on first use. The offering plugin exports the returned getter; others call it with
 * `ctx.host` (or an embedder with the host) and tap what it returns.
 */
export function definePluginHooks<T>(create: () => T): (host: PluginHost) => T {
  const byHost = new WeakMap<object, T>();
  return (host) => {
    const key = hostKey(host);
    let hooks = byHost.get(key);
    if (!hooks) byHost.set(key, (hooks = create()));
    return hooks;
  };
}
