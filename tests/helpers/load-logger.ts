/**
 * A module-load logger for a CLI run (`NODE_OPTIONS: --import <file>`): every file: module Node loads is
 * printed on stderr as `LOADED <url>`, so a test can say what a command imported (lazy loading, the
 * listing cache's hit that loads nothing but the bin).
 */
import type { TempProject } from "./project.js";

const LOGGER = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`export async function load(url, context, next) {
  if (url.startsWith("file:")) process._rawDebug("LOADED " + url);
  return next(url, context);
}\`));
`;

/** Writes the logger into the project; the NODE_OPTIONS value that preloads it. */
export function loadLoggerOption(p: TempProject): string {
  return `--import ${p.write("load-logger.mjs", LOGGER)}`;
}
