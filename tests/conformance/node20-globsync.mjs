// Preload for running the @modelcontextprotocol/conformance CLI on Node 20:
//   node --import ./tests/conformance/node20-globsync.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...
// Its bundle imports `globSync` from "fs", which Node 20 lacks (only its `tier-check` command
// calls it), so the import fails before anything runs. A resolve hook hands the conformance
// package an "fs" that has everything from node:fs plus a globSync that says why it is missing.
import { register } from "node:module";
import fs from "node:fs";
import { isMainThread } from "node:worker_threads";

if (isMainThread && typeof fs.globSync !== "function") register(import.meta.url);

const FS_WITH_GLOBSYNC =
  "data:text/javascript," +
  encodeURIComponent(
    'export * from "node:fs"; export { default } from "node:fs";\n' +
      'export function globSync() { throw new Error("fs.globSync needs Node 22 (used only by conformance tier-check)"); }\n',
  );

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && /\/(@modelcontextprotocol\/conformance|conformance-next)\//.test(context.parentURL ?? "")) {
    return { url: FS_WITH_GLOBSYNC, shortCircuit: true };
  }
  return next(specifier, context);
}
