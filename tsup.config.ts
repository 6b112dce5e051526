import { readFileSync } from "node:fs";
import path from "node:path";
import { chmodSync } from "node:fs";
import { build } from "esbuild";
import { defineConfig, type Options } from "tsup";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

const pkg = JSON.parse(readFileSync("./package.json", "utf8")) as { version: string };

/**
 * zod's `locales` namespace holds every language's error messages (360 KB of the 755 KB zod chunk, parsed
 * on every start); the host speaks English, so the bundle keeps `locales.en` only. A plugin that wants
 * another language imports it from zod itself (`zod/v4/locales/fr.js`) and passes it to `z.config`.
 */
const englishOnlyZod: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), "..", "locales", "index.js"), namespace: "zod-en" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), "en.js"))};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

export default defineConfig({
  entry: {
    index: "core/index.ts",
    testing: "testing/index.ts",
    kit: "kit/index.ts",
    embed: "core/embed.ts",
    builtins: "cli/builtins.ts",
    cli: "cli/index.ts",
    "demo-server": "examples/demo-server/server.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: { index: "core/index.ts", testing: "testing/index.ts", kit: "kit/index.ts", embed: "core/embed.ts", builtins: "cli/builtins.ts" } },
  splitting: true,
  sourcemap: true,
  clean: true,
  // Dependencies stay external (the CLI loads them lazily), except zod: its package entry imports ~95
  // files (every locale), ~20 ms of `agent tools` startup; bundled it is one chunk. Plugin authors
  // share this zod through `import { z } from "agent-host"` (and zod keeps its registry on globalThis).
  skipNodeModulesBundle: true,
  noExternal: ["zod", "tapable", /^@opentelemetry\//],
  // tapable too (~5 ms of CommonJS loading). It calls require("util"), so every chunk gets a `require`
  // (no source file may declare a top-level binding named `require`).
  banner: { js: 'import { createRequire as __agentCreateRequire } from "node:module"; const require = __agentCreateRequire(import.meta.url);' },
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
  esbuildPlugins: [englishOnlyZod],
  // The `agent` bin, dist/cli.cjs: CommonJS (no banner, no chunks), so `agent --version` starts no ES
  // module loader, nor does a listing answered from the cache; other commands import dist/cli.js. Built after the rest (`clean` would race with it).
  onSuccess: async () => {
    await build({
      entryPoints: ["cli/bin.cts"],
      outfile: "dist/cli.cjs",
      // With the listing cache's reading side (cli/listing-cache/key.ts: Node's built-in modules only).
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node20",
      define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
      logLevel: "warning",
    });
    chmodSync("dist/cli.cjs", 0o755);
  },
});
