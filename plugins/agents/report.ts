/** What discovery found wrong, per host: read by `agent agents` and `/agents`. */
import { definePluginHooks, type PluginHost } from "../../core/index.js";
import type { AgentProblem } from "./discover.js";

export const agentsReport = definePluginHooks(() => ({ problems: [] as AgentProblem[] }));

export function getAgentsReport(host: PluginHost) {
  return agentsReport(host);
}
