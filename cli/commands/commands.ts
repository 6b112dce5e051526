/** `agent commands [--json]`: every slash command: name, source, plugin, description. */
import { oneLine } from "../format.js";
import { defineAppCommand } from "./_define.js";
import { admitListing } from "../listing-cache/store.js";

export default defineAppCommand({
  name: "commands",
  description: "list slash commands [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print name, description, argumentHint, source and plugin as JSON" } },
  positionals: false,
  async run(ctx) {
    const json = !!ctx.values.json;
    const host = await ctx.openHost({ lazyTools: false, listing: true });
    admitListing(await ctx.prepare(), host);
    const commands = host.commands.list().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (json) {
      ctx.printJson(commands.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}), source: c.source, plugin: c.plugin })));
      return 0;
    }
    const rows = commands.map((c) => [`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`, c.source, oneLine(c.description, 70)]);
    ctx.print(ctx.table(rows, ["COMMAND", "SOURCE", "DESCRIPTION"]));
    ctx.print(`\n${commands.length} commands.`);
    return 0;
  },
});
