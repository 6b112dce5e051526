#!/usr/bin/env node
/** Run every benchmark in this folder (after `npm run build`): `npm run bench`. Exit 1 if a goal is missed. */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here).filter((f) => f.endsWith(".mjs") && f !== "run.mjs").sort();
let failed = 0;
for (const f of files) {
  const r = spawnSync(process.execPath, [path.join(here, f), ...process.argv.slice(2)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${f}: exit ${r.status ?? r.signal}`);
  }
}
process.exitCode = failed ? 1 : 0;
