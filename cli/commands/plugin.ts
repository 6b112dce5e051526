/** `agent plugin new|add|remove`: scaffold, install and enable plugins. */
import { defineAppCommand } from "./_define.js";
import { add, remove } from "./plugin-add.js";
import pluginNew from "./plugin-new.js";

export default defineAppCommand({
  name: "plugin",
  description: "create, install and remove plugins: new, add, remove",
  details: "agent plugins (plural) lists what is loaded.",
  subcommands: [pluginNew, add, remove],
});
