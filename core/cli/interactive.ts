/** Interactive session — placeholder until the agent loop lands (issue 4). */
import type { CliContext } from "./context.js";
export async function runInteractive(_ctx: CliContext): Promise<number> {
  process.stderr.write("agent: the interactive session is not available yet. See agent --help.\n");
  return 2;
}
