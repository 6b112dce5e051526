/** `/help`: every slash command, then the keys that matter. */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "help",
  description: "List slash commands and keys",
  run(_args, { host }) {
    const commands = host.commands.list().sort((a, b) => a.name.localeCompare(b.name));
    const label = (c: (typeof commands)[number]) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`;
    const width = Math.max(...commands.map((c) => label(c).length));
    return [
      "Commands:",
      ...commands.map((c) => `  ${label(c).padEnd(width)}  ${c.description}${c.source !== "commands" ? ` (${c.source})` : ""}`),
      "",
      "Keys:",
      "  Enter          send",
      "  \\ then Enter   continue on the next line",
      "  Up / Down      history",
      "  Ctrl-C         cancel the running request (twice to quit)",
      "  Ctrl-D         quit",
    ].join("\n");
  },
});
