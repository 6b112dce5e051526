/** The built-in plugins, loaded lazily. Each is written only against the public API. */
import type { BuiltinPlugin } from "../core/host.js";

export const builtinPlugins: BuiltinPlugin[] = [
  { name: "tools", load: async () => (await import("./tools/index.js")).default },
  { name: "mcp", load: async () => (await import("./mcp/index.js")).default },
  { name: "openai", load: async () => (await import("./openai/index.js")).default },
  { name: "anthropic", load: async () => (await import("./anthropic/index.js")).default },
  { name: "commands", load: async () => (await import("./commands/index.js")).default },
];
