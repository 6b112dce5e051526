#!/usr/bin/env node
/**
 * The `agent` command (package.json `bin`): CommonJS, so `agent --version` is answered before Node sets
 * up its ES module loader (about a tenth of `node -e 0`, bench/startup.mjs). Everything else goes to the
 * ES module entry, dist/cli.js (which answers --version itself too, for those who run it directly).
 */
declare const __AGENT_VERSION__: string;

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v" || args[0] === "-V")) {
  const text = `${typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev"}\n`;
  // Written to fd 1 directly: setting up process.stdout on a pipe (a socket) costs more than the rest.
  const { writeSync } = require("node:fs") as typeof import("node:fs");
  try {
    writeSync(1, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A full non-blocking pipe: the stream waits for it. A reader that closed the pipe early: a quiet end, as in dist/cli.js.
    if (code === "EAGAIN") process.stdout.write(text);
    else if (code !== "EPIPE") {
      process.exitCode = 1;
      writeSync(2, `agent: cannot write the version: ${(err as Error).message}\n`);
    }
  }
} else {
  // Built next to dist/cli.js; a variable so the compiler does not look for it beside this source.
  const entry = "./cli.js";
  import(entry).catch((err: unknown) => {
    process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
