/**
 * SUITE_CPU_LOG=<file> npx vitest run <files>: appends one line per test file, "<cpu seconds> <file>", the CPU of
 * the file's worker process after set-up plus every child process it reaped (the `agent` processes, servers, npm
 * its tests started, and theirs), from /proc (Linux). CPU, not wall time: the measure that a shared machine's
 * load does not change, for finding where the suite's time goes (vitest.config.ts loads this only when asked).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";

/** utime + stime + cutime + cstime of this process, in seconds (clock ticks of 1/100 s on Linux). */
function cpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
}

const start = cpuSeconds();
let file = "";
beforeAll(() => {
  file = expect.getState().testPath ?? "";
});
afterAll(() => {
  appendFileSync(process.env.SUITE_CPU_LOG!, `${(cpuSeconds() - start).toFixed(2)} ${file.replace(process.cwd() + "/", "")}\n`);
});
