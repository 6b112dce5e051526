/**
 * The tools a subagent gets: its `tools` list mapped to registered tools (Claude Code's names through the
 * tools' aliases: `Read` is `read_file`, `Bash` is `run_command`; MCP tool names as they are), or the
 * parent's tools when it has none, less its `disallowedTools`. The `task` tool only when listed by name.
 * Names no tool has are returned as `missing` (Claude Code tools agent-host lacks: `WebSearch`…). A tool the
 * session's deny rules take away whole is never offered (the gate would refuse its calls anyway).
 */
import { type RegisteredAgent, type RegisteredTool } from "../../core/index.js";
import { parsePermissionRule, ruleNamesTool } from "../../core/embed.js";

export const TASK_TOOL = "task";
/**
 * Never a subagent's: its requests carry every one of its tools in full (they do not pass the session's
 * request hooks), so the tool-search plugin's `tool_search` would have nothing to load.
 */
const SESSION_ONLY = new Set(["tool_search"]);

export interface AgentTools {
  tools: string[];
  missing: string[];
}

/** `Bash(git log:*)` names `Bash`. */
function bareName(entry: string): string {
  const open = entry.indexOf("(");
  return (open > 0 ? entry.slice(0, open) : entry).trim();
}

function lookup(all: readonly RegisteredTool[]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const t of all) {
    byName.set(t.name, t.name);
    for (const alias of t.aliases ?? []) if (!byName.has(alias)) byName.set(alias, t.name);
  }
  return byName;
}

function resolve(entries: readonly string[], byName: Map<string, string>, missing: string[]): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    const name = bareName(entry);
    const tool = byName.get(name) ?? (name.startsWith("mcp__") ? name : undefined);
    if (tool) out.push(tool);
    else missing.push(name);
  }
  return out;
}

/** Tools a deny rule takes away whole (`Bash`, `mcp__github__*`: no pattern): never offered to an agent. */
function deniedWhole(all: readonly RegisteredTool[], denyRules: readonly string[]): Set<string> {
  const rules = denyRules.flatMap((raw) => {
    try {
      const rule = parsePermissionRule(raw);
      return rule.pattern ? [] : [rule];
    } catch {
      return []; // the config's own check reports it
    }
  });
  return new Set(all.filter((t) => rules.some((r) => ruleNamesTool(r, t))).map((t) => t.name));
}

export function agentTools(agent: RegisteredAgent, all: readonly RegisteredTool[], denyRules: readonly string[] = []): AgentTools {
  const byName = lookup(all);
  const missing: string[] = [];
  let tools: string[];
  if (agent.meta?.readOnly === true) tools = all.filter((t) => t.risk === "read" && t.name !== TASK_TOOL).map((t) => t.name);
  else if (agent.tools && !agent.tools.includes("*")) tools = resolve(agent.tools, byName, missing);
  else tools = all.map((t) => t.name).filter((n) => n !== TASK_TOOL || agent.tools?.includes("*"));
  const denied = new Set([...resolve(agent.disallowedTools ?? [], byName, []), ...deniedWhole(all, denyRules)]);
  return { tools: [...new Set(tools)].filter((t) => !denied.has(t) && !SESSION_ONLY.has(t)), missing };
}
