#!/usr/bin/env node
/**
 * The `agent` entry point. Kept tiny: `--version` answers without importing anything, and every
 * command is loaded only when used (so no MCP or provider SDK is imported unless needed). Once the
 * command is done, the process exits: a timer or socket a plugin left behind cannot keep it alive.
 */
import module from "node:module";

declare const __AGENT_VERSION__: string;

// A reader that stops early (`agent tools | head`) closes the pipe: finish quietly, as other CLIs do,
// instead of dying on an unhandled EPIPE with a stack trace. The exit handler still stops children.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/** Exit once what was written has reached stdout and stderr. */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength === 0) done();
    else stream.write("", done);
  }
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "-V")) {
  process.stdout.write(`${typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev"}\n`);
} else {
  // Node >= 22.1 keeps the compiled code of the modules we load on disk (in the OS temp folder): a later
  // start skips parsing them. Node 20 has no such function and starts as before; --version loads nothing.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  // The bin found no listing in the cache that holds: this run's listing is stored, when it may be.
  const listing = "__agentPendingListing" in globalThis ? import("./listing-cache/store.js") : undefined;
  import("./main.js").then(
    async (m) => {
      const cache = await listing;
      cache?.recordListing();
      const code = await m.main(argv);
      cache?.finishListing(code);
      exitWhenFlushed(code);
    },
    (err: unknown) => {
      process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      exitWhenFlushed(1);
    },
  );
}
