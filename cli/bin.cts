#!/usr/bin/env node
/**
 * The `agent` command (package.json `bin`): CommonJS, so `agent --version` is answered before Node sets
 * up its ES module loader (about a tenth of `node -e 0`, bench/startup.mjs). `agent tools` is answered from
 * the listing cache when the last identical run left an entry that still holds (listing-cache/key.ts).
 * Everything else goes to the ES module entry, dist/cli.js (which answers --version itself too, for those
 * who run it directly).
 */
declare const __AGENT_VERSION__: string;

const { writeSync } = require("node:fs") as typeof import("node:fs");

/** Written to fd 1 directly: setting up process.stdout on a pipe (a socket) costs more than the rest. */
function writeOut(text: string | Buffer, what: string): void {
  let rest = typeof text === "string" ? Buffer.from(text) : text;
  try {
    // A pipe may take part of it at a time.
    while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A full non-blocking pipe: the stream waits for it. A reader that closed the pipe early: a quiet end, as in dist/cli.js.
    if (code === "EAGAIN") process.stdout.write(rest);
    else if (code !== "EPIPE") {
      process.exitCode = 1;
      writeSync(2, `agent: cannot write ${what}: ${(err as Error).message}\n`);
    }
  }
}

const VERSION = typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev";
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v" || args[0] === "-V")) {
  writeOut(`${VERSION}\n`, "the version");
} else {
  // Bundled into this file by esbuild (Node's built-in modules only); loaded here, not for --version.
  const { lookupListing } = require("./listing-cache/key.js") as typeof import("./listing-cache/key.js");
  const found = lookupListing(args, __dirname, VERSION);
  if (found && "hit" in found) {
    if (process.env.AGENT_DEBUG === "1") writeSync(2, `agent: listing from the cache (${found.hit.file})\n`);
    process.exitCode = found.hit.code;
    writeOut(found.hit.stdout, "the listing");
  } else {
    // dist/cli.js stores what this run prints, when it may (listing-cache/store.ts).
    if (found) (globalThis as { __agentPendingListing?: unknown }).__agentPendingListing = found.pending;
    // Built next to dist/cli.js; a variable so the compiler does not look for it beside this source.
    const entry = "./cli.js";
    import(entry).catch((err: unknown) => {
      process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
  }
}
