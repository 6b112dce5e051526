/** `agent plugin new <name>`: scaffold a plugin package (being written). */
import { AgentError } from "../../core/index.js";
import { defineAppCommand } from "./_define.js";

export default defineAppCommand({
  name: "new",
  description: "scaffold a plugin package: agent-plugin-<name>",
  usage: "<name> [--dir <folder>]",
  run() {
    throw new AgentError("E_USAGE", "not implemented yet");
  },
});
