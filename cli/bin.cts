#!/usr/bin/env node
/**
 * The `agent` command (package.json `bin`): CommonJS, so `agent --version` is answered before Node sets
 * up its ES module loader (about a tenth of `node -e 0`, bench/startup.mjs). Everything else goes to the
 * ES module entry, dist/cli.js (which answers --version itself too, for those who run it directly).
 */
declare const __AGENT_VERSION__: string;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v" || args[0] === "-V")) {
  // As dist/cli.js: a reader that closed the pipe early ends the command quietly.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.stdout.write(`${typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev"}\n`);
} else {
  // Built next to dist/cli.js; a variable so the compiler does not look for it beside this source.
  const entry = "./cli.js";
  import(entry).catch((err: unknown) => {
    process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
