/** `agent plugin new|add|remove`: scaffold, install and enable plugins. */
import { defineAppCommand } from "./_define.js";
import { add, remove } from "./plugin-add.js";
import pluginNew from "./plugin-new.js";
import { claudePluginSubcommands } from "../builtins.js";

export default defineAppCommand({
  name: "plugin",
  description: "create, add and remove npm plugins (new, add, remove); Claude Code plugins and marketplaces (marketplace, install, uninstall, enable, disable, list, update)",
  details: "agent plugins (plural) lists what is loaded.",
  subcommands: [pluginNew, add, remove, ...claudePluginSubcommands],
});
