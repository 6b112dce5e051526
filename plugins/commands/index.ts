/** Built-in plugin: the slash commands in `commands/` (one file each; `/resume` is the `sessions` plugin's). */
import { definePlugin } from "../../core/index.js";
import clear from "../../commands/clear.js";
import exit from "../../commands/exit.js";
import help from "../../commands/help.js";
import mode from "../../commands/mode.js";
import model from "../../commands/model.js";
import tools from "../../commands/tools.js";
import usage from "../../commands/usage.js";
import audit from "../../commands/audit.js";
import permissions from "../../commands/permissions.js";
import plugins from "../../commands/plugins.js";
import skills from "../../commands/skills.js";
import compact from "../../commands/compact.js";

export default definePlugin({
  name: "commands",
  // The host's own controls (/help, /mode, /exit…) win a name clash with any other command.
  enforce: "pre",
  commands: [help, tools, skills, plugins, permissions, audit, model, mode, clear, compact, usage, exit],
});
