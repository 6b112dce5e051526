/** `agent tools [--json]`: every registered tool with its source, risk and input schema. */
import type { CliContext } from "./context.js";
import { oneLine, printJson, table } from "./format.js";
import { parseSubArgs } from "./main.js";

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseSubArgs(args, { json: { type: "boolean" } }, "Usage: agent tools [--json]", false);
  if (!parsed) return 0;
  const host = await ctx.openHost({ interactive: false, quiet: !!parsed.values.json });
  try {
    // Tool names are ASCII: a plain comparison (localeCompare would load ICU collation, ~5 ms).
    const tools = host.tools.list().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (parsed.values.json) {
      printJson(tools.map((t) => ({ name: t.name, description: t.description, source: t.source, risk: t.risk, inputSchema: t.inputSchema })));
    } else {
      process.stdout.write(table(tools.map((t) => [t.name, t.risk, t.source, oneLine(t.description, 70)]), ["NAME", "RISK", "SOURCE", "DESCRIPTION"]) + "\n");
      process.stdout.write(`\n${tools.length} tools. Permission mode: ${host.permissionMode}.\n`);
    }
    return 0;
  } finally {
    await host.close();
  }
}
