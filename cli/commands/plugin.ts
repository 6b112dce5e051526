/** `agent plugin new|add|remove`: scaffold, install and enable plugins. */
import { defineAppCommand } from "./_define.js";
import pluginNew from "./plugin-new.js";

export default defineAppCommand({
  name: "plugin",
  description: "create, install and remove plugins: new, add, remove",
  subcommands: [pluginNew],
});
