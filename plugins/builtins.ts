/** The built-in plugins, loaded lazily. Each is written only against the public API. */
import type { BuiltinPlugin } from "../core/host.js";

export const builtinPlugins: BuiltinPlugin[] = [
  { name: "tools", load: async () => (await import("./tools/index.js")).default },
];
