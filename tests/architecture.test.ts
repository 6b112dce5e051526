/**
 * The architecture, kept true: dependency-cruiser checks the import rules of .dependency-cruiser.cjs
 * (core knows no plugin, everyone else uses core's public entry only, no cycles), proven to bite on a
 * small tree that breaks each rule; no function grows past 120 lines (a file of short functions may be
 * long: a line cap only bred `-parts` grab-bags); and, as a backstop, no source file past 900 lines.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "./helpers/paths.js";
import { checkFunctionBudget } from "./helpers/function-lengths.js";
import { codeLines } from "./helpers/code-lines.js";
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
    const r = await cruise(REPO_ROOT, ["core", "kit", "cli", "plugins", "commands", "sandbox", "testing"]);
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
    writeFile(path.join(dir, "cli/main.ts"), 'import "../plugins/a/index.js";\nimport "../kit/fs.js";\nexport {};\n');
    writeFile(path.join(dir, "kit/fs.ts"), 'import { x } from "../core/host.js";\nexport const k = x;\n');
    // Types that refer to each other across two files: a cycle of type-only imports, gone at runtime.
    writeFile(path.join(dir, "core/plugin-types.ts"), 'import type { Host } from "./host-types.js";\nexport interface Plugin { host: Host }\n');
    writeFile(path.join(dir, "core/host-types.ts"), 'import type { Plugin } from "./plugin-types.js";\nexport interface Host { plugins: Plugin[] }\n');
    // The layers beside the kernel (the OS sandbox, the plugin author's test host) use its entries only.
    writeFile(path.join(dir, "sandbox/bwrap.ts"), 'import { x } from "../core/host.js";\nexport const s = x;\n');
    writeFile(path.join(dir, "testing/index.ts"), 'import { x } from "../core/host.js";\nexport const t = x;\n');
    const r = await cruise(dir, ["core", "kit", "cli", "plugins", "sandbox", "testing"]);
    expect(r.code).not.toBe(0);
    expect(r.output, "a CLI file importing a kit file other than kit/index.ts").toMatch(/error public-api-only: cli\/main\.ts → kit\/fs\.ts/);
    for (const rule of ["core-knows-no-plugin", "kit-knows-no-host", "public-api-only", "plugins-stay-apart", "plugins-know-no-cli", "only-the-composition-root-picks-plugins", "sandbox-uses-the-contract", "testing-uses-the-contract", "no-circular"]) {
      expect(r.output, rule).toContain(`error ${rule}:`);
    }
    expect(r.output, "a type-only cycle").toMatch(/error no-circular: core\/(plugin|host)-types\.ts → \n\s+core\/(host|plugin)-types\.ts/);
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

const SOURCE_DIRS = ["core", "kit", "cli", "plugins", "commands", "sandbox", "testing"];
const FUNCTION_BUDGET = 120;

/**
 * Functions over the budget today, with their length now: they may not grow, and an entry whose function
 * was split (or is gone) fails the test until it is removed. Both files are being reworked (issue 21).
 */
const ALLOWED_LONG_FUNCTIONS: Record<string, number> = {
  "core/host/host.ts:openHost": 232,
  "core/gate/gate.ts:run": 158,
};

/**
 * The kernel's size, a ratchet: core/ may shrink, never grow. Issue 21 asked for at most 6,000 lines, counted as
 * lines of code (cloc's count: not blank, not only a comment; tests/helpers/code-lines.ts), so that documenting
 * the contract for plugin authors never costs budget and moving code is the only way down; 5,722 since
 * 2026-12-07 (8,455 lines with comments and blank lines). Sessions and
 * compaction left (plugins/sessions/, plugins/compaction/), the OS sandbox left for sandbox/, the test host for
 * testing/, the model tables for the providers, the audit log's JSONL file for kit/audit-file.ts (the kernel keeps
 * the AuditSink interface, when records are stored and the refusal policy), Claude Code's settings for
 * plugins/claude-settings/ (a config source the kernel asks while config loads), the permission rule grammar and
 * matching for kit/rules/ (the kernel keeps the decision: deny > ask > allow, the mode's default), the protected
 * paths' names and judging for kit/fs/protected-paths.ts (the kernel keeps which places are protected and what the
 * gate does about a hit), the
 * trusted-folders file, the local settings file, finding and loading a config file and the symlink-following of paths for kit/fs/, importing a
 * plugin's module and reading its package for kit/, the config merge's mechanics, origins and plugin entries as
 * values for kit/config/, a tap's options and a handler's time bound for kit/ (the kernel keeps which lists join and
 * the files' order, what a folder's trust admits, the config's
 * schema and merge, which paths are protected and which are outside the workspace, which agent-host a plugin
 * accepts).
 * Context management (window, estimate, when to compact) left for plugins/compaction/ (the kernel keeps the
 * request's size and the compaction it is asked for, on the fitContext / modelError / compactAsked hooks).
 * The session's run and a subagent's share one turn runner (core/loop/turns.ts); the model-alias tables' merging
 * and the loop's error helpers left for kit/provider/.
 * The contract's types derived from one another (Registered<D>, Registrar<Def>, Pick/Omit), one check and one
 * data-entry builder for every registration kind.
 * Lower this number when code leaves.
 */
const KERNEL_LINE_BUDGET = 5_722;
const FOLDER_FILE_BUDGET = 15;
const CONTRACT_NAME_BUDGET = 120;

describe("the kernel's shape", () => {
  const core = sources(path.join(REPO_ROOT, "core")).filter((f) => f.endsWith(".ts"));

  test(`core/ is at most ${KERNEL_LINE_BUDGET} lines of code, in folders of at most ${FOLDER_FILE_BUDGET} files`, () => {
    const lines = core.reduce((n, f) => n + codeLines(readFileSync(f, "utf8")), 0);
    expect(lines).toBeGreaterThan(1000);
    expect(lines).toBeLessThanOrEqual(KERNEL_LINE_BUDGET);
    const perFolder = new Map<string, number>();
    for (const f of core) perFolder.set(path.dirname(f), (perFolder.get(path.dirname(f)) ?? 0) + 1);
    const crowded = [...perFolder].filter(([, n]) => n > FOLDER_FILE_BUDGET).map(([d, n]) => `${path.relative(REPO_ROOT, d)}: ${n} files`);
    expect(crowded).toEqual([]);
  });

  test(`the contract entry (agent-host) exports at most ${CONTRACT_NAME_BUDGET} names, each documented in docs/plugins.md`, async () => {
    const ts = (await import("typescript")).default;
    // One program for both entries (each alone would parse and bind most of the same files again).
    const entries = ["core/index.ts", "kit/index.ts"].map((e) => path.join(REPO_ROOT, e));
    const program = ts.createProgram(entries, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true });
    const checker = program.getTypeChecker();
    const names = (entry: string) => {
      const file = program.getSourceFile(path.join(REPO_ROOT, entry))!;
      return checker.getExportsOfModule(checker.getSymbolAtLocation(file)!).map((s) => s.name);
    };
    const contract = names("core/index.ts");
    expect(contract).toContain("definePlugin");
    expect(contract.length).toBeLessThanOrEqual(CONTRACT_NAME_BUDGET);
    const docs = readFileSync(path.join(REPO_ROOT, "docs/plugins.md"), "utf8");
    const undocumented = contract.filter((n) => n !== "ContractSlots" && !new RegExp(`\\b${n}\\b`).test(docs));
    expect(undocumented, "document these in docs/plugins.md").toEqual([]);
    // kit is for everyone: it must not re-export the host (its rule in .dependency-cruiser.cjs keeps it so).
    expect(names("kit/index.ts")).not.toContain("createHost");
  });
});

describe("size budgets", () => {
  const files = SOURCE_DIRS.flatMap((d) => sources(path.join(REPO_ROOT, d))).map((f) => ({ file: path.relative(REPO_ROOT, f), text: readFileSync(f, "utf8") }));

  test(`no function is over ${FUNCTION_BUDGET} lines`, () => {
    expect(files.length).toBeGreaterThan(50);
    const report = checkFunctionBudget(files, FUNCTION_BUDGET, ALLOWED_LONG_FUNCTIONS);
    expect(report.offenders, "split these into named functions").toEqual([]);
    expect(report.stale, "remove these from ALLOWED_LONG_FUNCTIONS").toEqual([]);
  });

  test("the function budget catches a long function, method and arrow body, and an allowed one that grew", () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  x += ${i};`).join("\n");
    const text = [
      "/** A doc comment does not count. */",
      `export function long(): number {\n  let x = 0;\n${body(120)}\n  return x;\n}`,
      `export function fits(): number {\n${body(120)}\n}`,
      `export class K {\n  method(x: number): number {\n${body(122)}\n  }\n  short = () => 1;\n}`,
      `export const arrow = (x: number) => {\n${body(121)}\n};`,
      "export declare function bodiless(): void;",
    ].join("\n");
    const grown = `export function old(x: number): number {\n${body(131)}\n}`;
    const report = checkFunctionBudget(
      [
        { file: "core/fixture.ts", text },
        { file: "core/grown.ts", text: grown },
      ],
      FUNCTION_BUDGET,
      { "core/grown.ts:old": 130, "core/gone.ts:split": 200 },
    );
    expect(report.offenders).toEqual([
      "core/fixture.ts:2 long (122 lines)",
      "core/fixture.ts:245 method (122 lines)",
      "core/fixture.ts:369 arrow (121 lines)",
      "core/grown.ts:1 old (131 lines)",
    ]);
    expect(report.stale).toEqual(["core/gone.ts:split"]);
  });

  // A backstop the function budget leaves open: a file of many short functions or long tables that
  // keeps growing (the largest is under 500 lines today).
  test("no source file is over 900 lines", () => {
    const long = files.map((f) => ({ file: f.file, lines: f.text.split("\n").length })).filter((f) => f.lines > 900);
    expect(long).toEqual([]);
  });
});
