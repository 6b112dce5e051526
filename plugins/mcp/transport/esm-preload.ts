/**
 * `import()` of the MCP SDK opens its whole module graph at once (~140 files, most of them zod's
 * locales): under a low `ulimit -n` it fails with EMFILE, and Node caches the failure, so no server
 * could connect at all. When descriptors are short, the graph is loaded first with require(esm)
 * (Node ≥ 20.19), which reads one file at a time into the same module cache.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { descriptors } from "./descriptors.js";

/** Fewer free descriptors than this and a concurrent import of the SDK may run out. */
export const IMPORT_NEEDS = 256;

const require = createRequire(import.meta.url);

/** Loads `specifiers` one file at a time when descriptors are short; at once (nothing done here) otherwise. */
export function preloadWhenShort(specifiers: readonly string[]): Promise<void> {
  const d = descriptors();
  if (!d || d.limit - d.open >= IMPORT_NEEDS) return Promise.resolve();
  // On the next turn: servers being started in this one are spawned first and boot meanwhile.
  return new Promise((resolve) =>
    setImmediate(() => {
      for (const specifier of specifiers) {
        try {
          require(fileURLToPath(import.meta.resolve(specifier)));
        } catch {
          // The import() that follows reports what is wrong.
        }
      }
      resolve();
    }),
  );
}
