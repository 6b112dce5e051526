/** The rows of `agent agents` and `/agents`: every agent with its source, model and tools, and the files that were skipped. */
import type { PluginHost } from "../../core/index.js";
import { agentTools } from "./agent-tools.js";
import { agentsReport } from "./report.js";

export interface AgentRow {
  name: string;
  description: string;
  source: string;
  plugin?: string;
  path?: string;
  /** `inherit` when it runs on the session's model. */
  model: string;
  /** The tools it gets, as registered names. */
  tools: string[];
  /** It names no tools: it gets the session's (less its disallowedTools). */
  inheritsTools?: true;
  /** Names in its `tools` no registered tool has (Claude Code tools agent-host lacks). */
  missingTools?: string[];
  /** Set for a file that was skipped: why. */
  problem?: string;
}

export function agentRows(host: PluginHost): AgentRow[] {
  const all = host.tools.list();
  const rows: AgentRow[] = host.agents.list().map((a) => {
    const { tools, missing } = agentTools(a, all, host.config.permissions?.deny ?? []);
    return {
      name: a.name,
      description: a.description,
      source: a.source,
      plugin: a.plugin,
      ...(a.path ? { path: a.path } : {}),
      model: a.model ?? "inherit",
      tools,
      ...(!a.tools && a.meta?.readOnly !== true ? { inheritsTools: true as const } : {}),
      ...(missing.length ? { missingTools: missing } : {}),
    };
  });
  for (const p of agentsReport(host).problems) rows.push({ name: "", description: "", source: "", path: p.path, model: "", tools: [], problem: p.message });
  return rows;
}

/** A table for people: name, source, model, tools, and the first line of the description. */
export function agentTable(rows: AgentRow[], table: (rows: string[][], head: string[]) => string): string {
  const agents = rows.filter((r) => !r.problem);
  const skipped = rows.filter((r) => r.problem);
  const toolText = (r: AgentRow) => `${r.inheritsTools ? (r.tools.length === 0 ? "(none)" : "the session's") : r.tools.join(", ") || "(none)"}${r.missingTools ? ` (not here: ${r.missingTools.join(", ")})` : ""}`;
  const lines = [table(agents.map((r) => [r.name, r.source, r.model, cutText(toolText(r), 60), cutText(r.description.replace(/\s+/g, " "), 70)]), ["NAME", "SOURCE", "MODEL", "TOOLS", "DESCRIPTION"])];
  if (skipped.length) lines.push("", "Skipped:", ...skipped.map((r) => `  ${r.path}: ${r.problem}`));
  return lines.join("\n");
}

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
