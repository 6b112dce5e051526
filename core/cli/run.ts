/** `agent run` — placeholder until the agent loop lands (issue 4). */
import { AgentError } from "../errors.js";
import type { CliContext } from "./context.js";
export async function run(_args: string[], _ctx: CliContext): Promise<number> {
  throw new AgentError("E_USAGE", "agent run is not available yet.");
}
