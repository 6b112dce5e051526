/**
 * The architecture, kept true: dependency-cruiser checks the import rules of .dependency-cruiser.cjs
 * (core knows no plugin, everyone else uses core's public entry only, no cycles), proven to bite on a
 * small tree that breaks each rule; and no source file grows past 500 lines.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "./helpers/paths.js";
import { cleanupTemp, tempDir, writeFile } from "./helpers/project.js";

afterAll(cleanupTemp);

const run = promisify(execFile);
const DEPCRUISE = path.join(REPO_ROOT, "node_modules", ".bin", "depcruise");
const CONFIG = path.join(REPO_ROOT, ".dependency-cruiser.cjs");

async function cruise(cwd: string, dirs: string[]): Promise<{ code: number; output: string }> {
  try {
    const r = await run(DEPCRUISE, [...dirs, "--config", CONFIG, "--output-type", "err"], { cwd });
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("import rules (dependency-cruiser)", () => {
  test("the repository keeps every rule", async () => {
    const r = await cruise(REPO_ROOT, ["core", "cli", "plugins", "commands"]);
    expect(r.output).toContain("no dependency violations found");
    expect(r.code).toBe(0);
  });

  test("each rule catches the violation it is there for", async () => {
    const dir = tempDir("agent-arch-");
    writeFile(path.join(dir, "tsconfig.json"), { compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowJs: false } });
    writeFile(path.join(dir, "package.json"), { name: "arch", type: "module" });
    writeFile(path.join(dir, "core/index.ts"), 'export { x } from "./host.js";\n');
    writeFile(path.join(dir, "core/host.ts"), 'import { p } from "../plugins/a/index.js";\nexport const x = p;\n');
    writeFile(path.join(dir, "plugins/a/index.ts"), 'import { y } from "../b/index.js";\nimport { x } from "../../core/host.js";\nexport const p = y + String(x);\n');
    writeFile(path.join(dir, "plugins/b/index.ts"), 'import { a } from "./c.js";\nexport const y = a;\n');
    writeFile(path.join(dir, "plugins/b/c.ts"), 'import { y } from "./index.js";\nimport "../../cli/main.js";\nexport const a = String(y);\n');
    writeFile(path.join(dir, "cli/main.ts"), 'import "../plugins/a/index.js";\nexport {};\n');
    const r = await cruise(dir, ["core", "cli", "plugins"]);
    expect(r.code).not.toBe(0);
    for (const rule of ["core-knows-no-plugin", "public-api-only", "plugins-stay-apart", "plugins-know-no-cli", "only-the-composition-root-picks-plugins", "no-circular"]) {
      expect(r.output, rule).toContain(`error ${rule}:`);
    }
  });
});

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sources(full));
    else if (/\.(ts|mts|mjs)$/.test(name)) out.push(full);
  }
  return out;
}

test("no source file is over 500 lines", () => {
  const files = ["core", "cli", "plugins", "commands"].flatMap((d) => sources(path.join(REPO_ROOT, d)));
  expect(files.length).toBeGreaterThan(50);
  const long = files
    .map((f) => ({ file: path.relative(REPO_ROOT, f), lines: readFileSync(f, "utf8").split("\n").length }))
    .filter((f) => f.lines > 500);
  expect(long).toEqual([]);
});
