/** `agent plugins [--json]`: loaded and failed plugins, with reasons. */
import type { CliContext } from "./context.js";
import { printJson, table } from "./format.js";
import { parseSubArgs } from "./main.js";

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseSubArgs(args, { json: { type: "boolean" } }, "Usage: agent plugins [--json]", false);
  if (!parsed) return 0;
  const host = await ctx.openHost({ interactive: false, quiet: true });
  try {
    if (parsed.values.json) {
      printJson(host.plugins);
      return 0;
    }
    const rows = host.plugins.map((p) => [
      p.name,
      p.status,
      p.from,
      p.status === "loaded" ? `${p.tools} tools, ${p.commands} commands, ${p.skills} skills, ${p.providers} providers` : (p.error ?? ""),
    ]);
    process.stdout.write(table(rows, ["PLUGIN", "STATUS", "FROM", "DETAILS"]) + "\n");
    const failed = host.plugins.filter((p) => p.status === "failed").length;
    if (failed) process.stdout.write(`\n${failed} plugin(s) failed to load.\n`);
    return 0;
  } finally {
    await host.close();
  }
}
