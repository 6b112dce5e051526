/** `/plugins`: every plugin, loaded, failed or disabled, with what it registered or why it failed. */
import { defineCommand } from "../core/index.js";
import { columns, oneLine } from "./_format.js";

export default defineCommand({
  name: "plugins",
  description: "List plugins: loaded, failed, disabled",
  run(_args, { host }) {
    const rows = host.plugins.map((p) => [
      p.name,
      p.status,
      p.status === "loaded" ? `${p.tools} tools, ${p.commands} commands, ${p.skills} skills, ${p.providers} providers` : oneLine(p.error ?? "", 90),
    ]);
    return [`${host.plugins.length} plugins:`, ...columns(rows)].join("\n");
  },
});
