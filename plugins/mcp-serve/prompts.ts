/**
 * Markdown commands and MCP servers' prompts as MCP prompts: each takes its arguments as one line
 * (`arguments`), as `/name args` would; getting one runs the command as a caller (never as the user,
 * so it cannot change the permission mode) and hands back the prompt it makes.
 */
import type { PluginHost } from "../../core/index.js";

/** Commands that make a prompt for the model rather than act on the session. */
const PROMPT_PLUGINS = new Set(["markdown-commands", "mcp"]);

export function promptList(host: PluginHost): { name: string; description: string; arguments: { name: string; description: string; required: boolean }[] }[] {
  return host.commands
    .list()
    .filter((c) => PROMPT_PLUGINS.has(c.plugin))
    .map((c) => ({ name: c.name, description: c.description, arguments: [{ name: "arguments", description: c.argumentHint ? `as after /${c.name}: ${c.argumentHint}` : `as after /${c.name}`, required: false }] }));
}

export async function getPrompt(host: PluginHost, name: string, args: Record<string, string> | undefined, signal: AbortSignal) {
  const command = host.commands.get(name);
  if (!command || !PROMPT_PLUGINS.has(command.plugin)) throw Object.assign(new Error(`No prompt named "${name}"`), { code: -32602 });
  const { arguments: line, ...named } = args ?? {};
  const rest = Object.entries(named).map(([k, v]) => `${k}=${v}`);
  const result = await host.commands.run(`/${name} ${[line ?? "", ...rest].filter(Boolean).join(" ")}`.trimEnd(), { signal });
  const text = result.prompt ?? result.output ?? "";
  return { description: command.description, messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
}
