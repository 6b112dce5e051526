/** `agent tools [--json]`: every registered tool with its source, risk and input schema. */
import { oneLine } from "../format.js";
import { defineAppCommand } from "./_define.js";
import { admitListing } from "../listing-cache/store.js";

export default defineAppCommand({
  name: "tools",
  description: "list registered tools [--json]",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print name, description, source, risk and input schema as JSON" } },
  positionals: false,
  async run(ctx) {
    const json = !!ctx.values.json;
    // Startup problems go to stderr even with --json: stdout stays the JSON, and nothing is hidden.
    const host = await ctx.openHost({ listing: true });
    // A source that can list its tools without loading (an MCP server with a warm tool cache) is left alone:
    // its cached tools are listed, nothing is started. The others load (a failure is reported on stderr).
    await host.tools.load({ skipReady: true });
    // Tool names are ASCII: a plain comparison (localeCompare would load ICU collation, ~5 ms).
    // What the listing depends on: stats can vouch for it (the bin answers the same command from the cache next time), or not.
    admitListing(await ctx.prepare(), host);
    const tools = host.tools.list().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (json) {
      ctx.printJson(tools.map((t) => ({ name: t.name, description: t.description, source: t.source, risk: t.risk, inputSchema: t.inputSchema })));
      return 0;
    }
    ctx.print(ctx.table(tools.map((t) => [t.name, t.risk, t.source, oneLine(t.description, 70)]), ["NAME", "RISK", "SOURCE", "DESCRIPTION"]));
    ctx.print(`\n${tools.length} tools. Permission mode: ${host.permissionMode}.`);
    return 0;
  },
});
