import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  // dist/index.d.ts: the types of the options, for users who write their config in TypeScript.
  dts: true,
  clean: true,
  sourcemap: true,
  // The running host provides agent-host (and the zod behind its `z`): bundling a copy would give the
  // plugin a second zod and a second set of helpers.
  external: ["agent-host"],
});
