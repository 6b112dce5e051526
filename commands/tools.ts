/** `/tools`: the tools the model can call, with their risk and source. */
import { defineCommand } from "../core/index.js";
import { oneLine } from "./_format.js";

export default defineCommand({
  name: "tools",
  description: "List the tools the model can call",
  run(_args, { host }) {
    const tools = host.tools.list().sort((a, b) => a.name.localeCompare(b.name));
    if (!tools.length) return "No tools are registered.";
    const width = Math.max(...tools.map((t) => t.name.length));
    const lines = tools.map((t) => `  ${t.name.padEnd(width)}  ${t.risk.padEnd(7)}  ${t.source.padEnd(10)}  ${oneLine(t.description, 60)}`);
    return [`${tools.length} tools (permission mode: ${host.permissionMode}):`, ...lines].join("\n");
  },
});
