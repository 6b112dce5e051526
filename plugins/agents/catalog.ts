/**
 * The `task` tool's description as the model sees it: what the tool does and every agent with its
 * description, within a budget (`agents.budget`, characters; default 8000), as the skills catalog is:
 * when the whole list does not fit, descriptions are cut to one common length (never below 100
 * characters, ending with "…"), then the last agents are left out.
 */
import type { RegisteredAgent } from "../../core/index.js";

export const DEFAULT_BUDGET = 8000;
const MIN_DESCRIPTION = 100;

const HEAD = [
  "Launch a subagent to handle a task in a context of its own: it works with its own tools and only its final answer comes back to you.",
  "Use it for searches and tasks that need many reads, to keep your context small; give it a complete, self-contained prompt (it does not see this conversation) and say what it should return.",
  "Several task calls in one message run at the same time.",
  "",
  "Agents (subagent_type):",
].join("\n");

export interface AgentCatalog {
  text: string;
  shortened: string[];
  leftOut: string[];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

export function agentCatalog(agents: readonly RegisteredAgent[], budget = DEFAULT_BUDGET): AgentCatalog {
  const lines = agents.map((a) => ({ name: a.name, description: oneLine(a.description) }));
  const render = (list: typeof lines, max = Infinity) => [HEAD, ...list.map((l) => `- ${l.name}: ${cut(l.description, max)}`)].join("\n");
  const full = render(lines);
  if (full.length <= budget) return { text: full, shortened: [], leftOut: [] };
  let kept = lines;
  const leftOut: string[] = [];
  for (;;) {
    const fixed = render(kept, 0).length;
    const share = kept.length ? Math.floor((budget - fixed) / kept.length) : 0;
    if (share >= MIN_DESCRIPTION || kept.length === 0) {
      return { text: render(kept, share), shortened: kept.filter((l) => l.description.length > share).map((l) => l.name), leftOut };
    }
    leftOut.unshift(kept[kept.length - 1].name);
    kept = kept.slice(0, -1);
  }
}
