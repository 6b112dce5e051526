/** `/exit`: end the interactive session. */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "exit",
  description: "End the session",
  run: () => ({ exit: true }),
});
