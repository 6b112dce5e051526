/** `agent sessions [--json]`: the saved conversations of this project, newest first. */
import { type CliContext } from "../../core/index.js";
import { listSessions, sessionsDir } from "../builtins.js";
import { oneLine } from "../format.js";
import { defineAppCommand } from "./_define.js";

export default defineAppCommand({
  name: "sessions",
  description: "list the saved sessions of this project (agent run -c / --resume <id> continues one) [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print id, started, updated, model, turns, last prompt and file as JSON" } },
  positionals: false,
  async run(ctx) {
    // Only the project root is needed: no plugin is set up, no server started.
    const { projectRoot } = await ctx.prepare();
    if (ctx.values.json) {
      ctx.printJson(listSessions(projectRoot));
      return 0;
    }
    return printSessions(ctx, projectRoot);
  },
});

/** The sessions as a table, newest first, with how to continue one (also `agent --resume` with no id, headless). */
export function printSessions(ctx: Pick<CliContext, "print" | "table">, projectRoot: string): number {
  const sessions = listSessions(projectRoot);
  if (!sessions.length) {
    ctx.print(`No saved sessions in ${sessionsDir(projectRoot)} yet.`);
    return 0;
  }
  const when = (iso: string) => iso.slice(0, 16).replace("T", " ");
  ctx.print(ctx.table(sessions.map((s) => [s.id, when(s.started), when(s.updated), String(s.turns), s.model ?? "", oneLine(s.lastPrompt, 60)]), ["ID", "STARTED", "UPDATED", "TURNS", "MODEL", "LAST PROMPT"]));
  ctx.print(`\n${sessions.length} session${sessions.length === 1 ? "" : "s"}. Continue one with: agent run --resume <id> (a unique start of the id is enough), or agent -c for the newest.`);
  return 0;
}
