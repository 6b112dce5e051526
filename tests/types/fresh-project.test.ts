/**
 * The published types stand alone: a fresh TypeScript project (`tsc --init`, its defaults: strict,
 * `types: []`, exactOptionalPropertyTypes) with only agent-host in node_modules compiles a plugin that
 * uses the main and the testing entries, with the library's .d.ts checked too (skipLibCheck off).
 * No @types/node is needed. Uses the build's dist/*.d.ts (CI builds before testing).
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { assertBuilt, REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";

afterAll(cleanupTemp);

const run = promisify(execFile);
const TSC = path.join(REPO_ROOT, "node_modules", ".bin", "tsc");

async function tsc(cwd: string, ...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const r = await run(TSC, args, { cwd });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

test("a plugin compiles against the published .d.ts with nothing but agent-host installed", async () => {
  assertBuilt();
  const dir = tempDir("agent-fresh-ts-");
  expect((await tsc(dir, "--init")).code).toBe(0);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "fresh", type: "module", private: true }));
  mkdirSync(path.join(dir, "node_modules"));
  // agent-host "installed": its package root, as npm would link a local package.
  symlinkSync(REPO_ROOT, path.join(dir, "node_modules", "agent-host"));
  mkdirSync(path.join(dir, "src"));
  copyFileSync(path.join(REPO_ROOT, "tests/types/fresh-project/plugin.ts.txt"), path.join(dir, "src", "plugin.ts"));
  // Beside it, a file with one type error: one check of the whole project (a full check of agent-host's
  // .d.ts is most of a tsc run) shows both that the check can fail and that nothing else fails: the
  // output is that one error and no other line (none in plugin.ts, none in the library's .d.ts).
  writeFileSync(path.join(dir, "src", "broken.ts"), 'import { defineTool, z } from "agent-host";\nexport const t = defineTool({ name: "t", description: "d", input: z.object({ n: z.number() }), run: ({ n }) => n.toUpperCase() });\n');
  const r = await tsc(dir, "-p", ".", "--noEmit", "--skipLibCheck", "false");
  expect(r.code).not.toBe(0);
  expect(r.output.trimEnd().split("\n"), r.output).toEqual([expect.stringMatching(/^src\/broken\.ts\(2,\d+\): error TS2339: Property 'toUpperCase' does not exist on type 'number'\.$/)]);
});
