/**
 * The agents plugin: subagents in Claude Code's format. Finds Markdown agent definitions (discover.ts:
 * the project's `.agent/agents` and `.claude/agents`, the user's), registers them with the two built-in
 * agents (`general-purpose`, `explore`) through `ctx.agents.add`, and offers the `task` tool that runs one
 * in a conversation of its own through the same gate (task-tool.ts). `agent agents` and `/agents` list
 * them. Precedence: project over user over other plugins' agents over the built-in ones.
 * Written only against the public plugin API.
 */
import { defineCliCommand, definePlugin, z, type PluginContext } from "../../core/index.js";
import { BUILTIN_AGENTS } from "./builtin-agents.js";
import { agentCatalog } from "./catalog.js";
import { agentRoots, discoverAgents } from "./discover.js";
import { agentRows, agentTable } from "./listing.js";
import { agentsReport } from "./report.js";
import { TASK_TOOL } from "./agent-tools.js";
import { taskTool } from "./task-tool.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    agents?: AgentsConfig;
  }
}

export const AgentsConfigSchema = z.strictObject({
  /** Characters the `task` tool's list of agents may take (default 8000). */
  budget: z.number().int().nonnegative().optional(),
});
export type AgentsConfig = z.infer<typeof AgentsConfigSchema>;

/** Discovery runs first in registerAgents (as the skills plugin's does), built-in agents last. */
const DISCOVER_STAGE = -1000;
const BUILTIN_STAGE = 1000;

const agentsCli = defineCliCommand({
  name: "agents",
  description: "list subagents: name, source, model, tools, description [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print the agents as JSON" } },
  positionals: false,
  async run(ctx) {
    // A listing: no audit record, no .agent/ left behind (cli/context.ts).
    const host = await ctx.openHost({ quiet: true, lazyTools: false, listing: true });
    const rows = agentRows(host);
    if (ctx.values.json) ctx.printJson(rows);
    else ctx.print(agentTable(rows, ctx.table));
    return 0;
  },
});

function discover(ctx: PluginContext): void {
  const found = discoverAgents(agentRoots(ctx.workspace.root, ctx.userConfigDir));
  agentsReport(ctx.host).problems = found.problems;
  for (const p of found.problems) ctx.report({ kind: "config", name: p.path, message: `Agent file ${p.path} skipped: ${p.message}` });
  for (const { definition, unknownKeys } of found.agents) {
    if (unknownKeys.length) ctx.report({ kind: "config", name: definition.path ?? definition.name, message: `Agent file ${definition.path}: unknown frontmatter key${unknownKeys.length === 1 ? "" : "s"} ${unknownKeys.join(", ")} kept and ignored` });
    ctx.agents.add(definition);
  }
}

export default definePlugin({
  name: "agents",
  configSections: { agents: { schema: AgentsConfigSchema, trust: "inert" } },
  cli: [agentsCli],
  setup(ctx: PluginContext) {
    const budget = (ctx.host.config.agents as AgentsConfig | undefined)?.budget;
    ctx.tools.add(taskTool(ctx));
    ctx.hooks.registerAgents.tap({ name: "discover", stage: DISCOVER_STAGE }, () => discover(ctx));
    ctx.hooks.registerAgents.tap({ name: "builtin", stage: BUILTIN_STAGE }, (agents) => {
      for (const def of BUILTIN_AGENTS) if (!ctx.host.agents.get(def.name)) agents.add(def);
    });
    // The agents are listed where the model reads them: the task tool's description, built per request.
    ctx.hooks.beforeModelRequest.tap("catalog", (request) => {
      const task = request.tools.find((t) => t.name === TASK_TOOL);
      if (task) task.description = agentCatalog(ctx.host.agents.list(), budget).text;
      return request;
    });
    ctx.commands.add({
      name: "agents",
      description: "list the subagents the task tool can start",
      run: () => ({ output: agentTable(agentRows(ctx.host), plainTable) }),
    });
  },
});

function plainTable(rows: string[][], head: string[]): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}
