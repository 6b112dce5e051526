/** `agent plugins [--json]`: loaded, failed and disabled plugins, with reasons. */
import { defineAppCommand } from "./_define.js";

export default defineAppCommand({
  name: "plugins",
  description: "list plugins, loaded, failed and disabled [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print the plugin statuses as JSON" } },
  positionals: false,
  async run(ctx) {
    const host = await ctx.openHost({ quiet: true, listing: true });
    if (ctx.values.json) {
      ctx.printJson(host.plugins);
      return 0;
    }
    const rows = host.plugins.map((p) => [
      p.name,
      p.status,
      p.from,
      p.status === "loaded" ? `${p.tools} tools, ${p.commands} commands, ${p.skills} skills, ${p.providers} providers` : (p.error ?? ""),
    ]);
    ctx.print(ctx.table(rows, ["PLUGIN", "STATUS", "FROM", "DETAILS"]));
    const failed = host.plugins.filter((p) => p.status === "failed").length;
    if (failed) ctx.print(`\n${failed} plugin(s) failed to load.`);
    return 0;
  },
});
