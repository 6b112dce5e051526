/** `agent mcp` — placeholder until the MCP plugin lands (issue 3). */
import { AgentError } from "../../core/errors.js";
import type { CliContext } from "../../core/cli/context.js";
export async function run(_args: string[], _ctx: CliContext): Promise<number> {
  throw new AgentError("E_USAGE", "agent mcp is not available yet.");
}
