/** `agent plugins [--json]`: loaded, failed and disabled plugins, with reasons. */
import { defineAppCommand } from "./_define.js";
import { admitListing } from "../listing-cache/store.js";

export default defineAppCommand({
  name: "plugins",
  description: "list plugins, loaded, failed and disabled [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print the plugin statuses as JSON" } },
  positionals: false,
  async run(ctx) {
    const host = await ctx.openHost({ quiet: true, listing: true });
    // Its problems are not printed (the statuses say them): a failed plugin is never stored (admitListing).
    admitListing(await ctx.prepare(), host);
    // A plugin's skills are registered by the skills plugin from its `skillDirs` (with the plugin as their
    // source): they count as the plugin's, as `agent skills` shows them.
    const shipped = (name: string) => host.skills.list().filter((k) => k.source === name && k.plugin !== name).length;
    const plugins = host.plugins.map((p) => (p.status === "loaded" ? { ...p, skills: p.skills + shipped(p.name) } : p));
    if (ctx.values.json) {
      ctx.printJson(plugins);
      return 0;
    }
    const rows = plugins.map((p) => [
      p.name,
      p.status,
      p.from,
      p.status === "loaded" ? `${p.tools} tools, ${p.commands} commands, ${p.skills} skills, ${p.providers} providers` : (p.error ?? ""),
    ]);
    ctx.print(ctx.table(rows, ["PLUGIN", "STATUS", "FROM", "DETAILS"]));
    const failed = plugins.filter((p) => p.status === "failed").length;
    if (failed) ctx.print(`\n${failed} plugin(s) failed to load.`);
    return 0;
  },
});
