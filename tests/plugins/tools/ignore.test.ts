/**
 * `grep` and `list_files` as ripgrep walks: .gitignore (nested, with negations) and .ignore respected,
 * .git/info/exclude too, .agent/ (history, audit, settings) never returned, an explicitly named ignored
 * folder still searched, and cut results said.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";

let root: string;
let host: Host;
const call = (name: string, input: unknown) => host.tools.call(name, input);
const lines = (out: string) => out.split("\n").filter((l) => l && !l.startsWith("("));

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agent-ignore-"));
  const files: Record<string, string> = {
    ".gitignore": "dist/\n*.log\n!keep.log\n/secrets.env\n",
    ".ignore": "vendor/\n",
    ".git/info/exclude": "local-notes.md\n",
    ".git/HEAD": "needle in git\n",
    "src/app.ts": "const needle = 1;\n",
    "src/debug.log": "needle in a log\n",
    "src/keep.log": "needle kept by a negation\n",
    "src/sub/.gitignore": "generated.ts\n",
    "src/sub/generated.ts": "needle generated\n",
    "src/sub/real.ts": "needle real\n",
    "dist/bundle.js": "needle bundled\n",
    "vendor/lib.js": "needle vendored\n",
    "secrets.env": "needle=secret\n",
    "nested/secrets.env": "needle not anchored here\n",
    "local-notes.md": "needle excluded locally\n",
    ".agent/history": "needle in history\n",
    ".agent/audit.jsonl": '{"needle":true}\n',
    ".agent/settings.local.json": '{ "systemPrompt": "needle" }\n',
    "pkg/.agent/audit.jsonl": "needle nested agent\n",
    "node_modules/dep/index.js": "needle dependency\n",
    ".github/workflow.yml": "needle hidden but not ignored\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  host = await createHost({ cwd: root, userConfigDir: false, audit: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass" });
});

afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

const VISIBLE = [".github/workflow.yml", ".gitignore", ".ignore", "nested/secrets.env", "src/app.ts", "src/keep.log", "src/sub/.gitignore", "src/sub/real.ts"];

describe(".gitignore, .ignore and the agent's own folder", () => {
  it("list_files leaves out ignored files, .git, .agent and node_modules", async () => {
    const r = await call("list_files", {});
    expect(lines(r.output)).toEqual(VISIBLE);
  });

  it("grep searches the same files", async () => {
    const r = await call("grep", { pattern: "needle" });
    expect(lines(r.output).map((l) => l.split(":")[0])).toEqual(VISIBLE.filter((f) => !f.includes("ignore")));
  });

  it("a folder named explicitly is searched even when ignored (as rg does), with the rules inside it still applied", async () => {
    expect(lines((await call("grep", { pattern: "needle", path: "dist" })).output)).toEqual(["dist/bundle.js:1: needle bundled"]);
    expect(lines((await call("list_files", { pattern: "dist/**" })).output)).toEqual(["dist/bundle.js"]);
    expect(lines((await call("list_files", { path: "src/sub" })).output)).toEqual(["src/sub/.gitignore", "src/sub/real.ts"]);
  });

  it("node_modules only when the pattern names it; .agent never", async () => {
    expect(lines((await call("list_files", { pattern: "node_modules/**" })).output)).toEqual(["node_modules/dep/index.js"]);
    const agent = await call("list_files", { path: ".agent" });
    expect(agent.ok).toBe(false);
    expect(agent.output).toContain("inside .agent/, the agent's own files");
    expect((await call("grep", { pattern: "needle", path: "pkg/.agent" })).output).toContain("not searched");
    expect((await call("list_files", { pattern: "**/*.jsonl" })).output).toMatch(/^No files match/);
  });

  it("says when results were cut, and by how much", async () => {
    const few = await call("list_files", { limit: 3 });
    expect(few.output).toContain(`(${VISIBLE.length - 3} more not shown: ${VISIBLE.length} files match; narrow the pattern or raise limit)`);
    const g = await call("grep", { pattern: "needle", max_results: 2 });
    expect(lines(g.output)).toHaveLength(2);
    expect(g.output).toContain("(3 more matches not shown: 5 in all; narrow the search or raise max_results)");
  });

  it("a glob without a slash matches names at any depth, as rg --glob does", async () => {
    expect(lines((await call("grep", { pattern: "needle", glob: "*.ts" })).output).map((l) => l.split(":")[0])).toEqual(["src/app.ts", "src/sub/real.ts"]);
  });
});
