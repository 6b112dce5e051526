import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const pkg = JSON.parse(readFileSync("./package.json", "utf8")) as { version: string };

export default defineConfig({
  entry: {
    index: "core/index.ts",
    cli: "core/cli.ts",
    "demo-server": "examples/demo-server/server.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: { index: "core/index.ts" } },
  splitting: true,
  sourcemap: true,
  clean: true,
  // Dependencies stay external: the CLI loads them lazily, and plugin authors share the same zod.
  skipNodeModulesBundle: true,
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
});
