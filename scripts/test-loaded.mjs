#!/usr/bin/env node
/**
 * The test suite on a fully loaded machine: one busy loop per core (another process, at normal
 * priority) runs while vitest does, so a test that waits for wall time instead of a condition fails
 * here. Usage: npm run test:loaded [-- <vitest args, e.g. a file>]   (after npm run build)
 */
import { spawn } from "node:child_process";
import os from "node:os";

const cores = os.availableParallelism?.() ?? os.cpus().length;
const busy = Array.from({ length: cores }, () => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
const stopBusy = () => {
  for (const b of busy) b.kill("SIGKILL");
};
process.on("exit", stopBusy);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));

console.error(`test:loaded: ${cores} busy loop(s) running beside vitest`);
const vitest = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...process.argv.slice(2)], { stdio: "inherit" });
vitest.on("close", (code, signal) => {
  stopBusy();
  process.exit(code ?? (signal ? 1 : 0));
});
