/** Where the repo and its build live, for tests that spawn the built CLI or import the built package. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST_CLI = path.join(REPO_ROOT, "dist", "cli.js");
/** The `agent` bin an installed package links (package.json `bin.agent`: dist/cli.cjs, which hands over to dist/cli.js). */
export const DIST_BIN = path.join(REPO_ROOT, (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { bin: { agent: string } }).bin.agent);
export const DIST_INDEX = path.join(REPO_ROOT, "dist", "index.js");
/** `import { definePlugin, z } from "${DIST_INDEX_URL}"` in plugin files written by tests. */
export const DIST_INDEX_URL = pathToFileURL(DIST_INDEX).href;
/** The built `agent-host/kit` entry (shared helpers), for files written by tests. */
export const DIST_KIT_URL = pathToFileURL(path.join(REPO_ROOT, "dist", "kit.js")).href;

/** Tests that spawn the CLI need `npm run build` first (CI builds before testing). */
export function assertBuilt(): void {
  if (![DIST_CLI, DIST_BIN, DIST_INDEX, DIST_INDEX.replace(/\.js$/, ".d.ts")].every((f) => existsSync(f))) {
    throw new Error(`The build is missing (${DIST_CLI}). Run "npm run build" before these tests.`);
  }
}
