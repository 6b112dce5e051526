// A type-only import: the config then loads wherever the package is built, even where `tsup` is
// not resolvable from this folder (the repository's e2e test builds a copy in a temp dir).
import type { Options } from "tsup";

export default {
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  clean: true,
  // The host provides agent-host (and its zod) at run time: never bundle a second copy.
  external: ["agent-host"],
} satisfies Options;
