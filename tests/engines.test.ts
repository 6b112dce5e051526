/**
 * `npm ci` on the oldest Node the README promises prints no EBADENGINE: no package in the lockfile asks
 * for a newer Node than package.json's `engines.node` allows (an `overrides` entry pins one that does).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import semver from "semver";
import { expect, test } from "vitest";
import { REPO_ROOT } from "./helpers/paths.js";

const read = (rel: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, rel), "utf8"));

test("every locked package runs on the oldest supported Node", () => {
  const pkg = read("package.json") as { engines: { node: string } };
  const lock = read("package-lock.json") as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  const wanting = Object.entries(lock.packages)
    .filter(([, p]) => p.engines && !Array.isArray(p.engines) && typeof p.engines.node === "string" && semver.validRange(p.engines.node) && !semver.satisfies(oldest, p.engines.node))
    .map(([where, p]) => `${where}@${p.version} wants Node ${(p.engines as { node: string }).node}`);
  expect(wanting, `these print EBADENGINE on Node ${oldest}`).toEqual([]);
});
