#!/usr/bin/env node
/**
 * The `agent` entry point. Kept tiny: `--version` answers without importing anything, and every
 * subcommand is loaded only when used (so no MCP or provider SDK is imported unless needed).
 */
declare const __AGENT_VERSION__: string;

// A reader that stops early (`agent tools | head`) closes the pipe: finish quietly, as other CLIs do,
// instead of dying on an unhandled EPIPE with a stack trace. The exit handler still stops children.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "-V")) {
  process.stdout.write(`${typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "dev"}\n`);
} else {
  import("./cli/main.js").then(
    (m) => m.main(argv),
    (err: unknown) => {
      process.stderr.write(`agent: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
