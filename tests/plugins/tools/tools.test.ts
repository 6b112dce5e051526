import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";

let root: string;
let outside: string;
let host: Host;

const call = (name: string, input: unknown, signal?: AbortSignal) => host.tools.call(name, input, { signal });

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agent-tools-"));
  outside = mkdtempSync(path.join(tmpdir(), "agent-outside-"));
  writeFileSync(path.join(outside, "secret.txt"), "top secret\n");
  mkdirSync(path.join(root, "src/nested"), { recursive: true });
  mkdirSync(path.join(root, "node_modules/dep"), { recursive: true });
  writeFileSync(path.join(root, "src/a.ts"), "export const a = 1;\nexport const b = 2;\n// TODO: fix\n");
  writeFileSync(path.join(root, "src/nested/c.ts"), "const c = 'TODO later';\n");
  writeFileSync(path.join(root, "node_modules/dep/index.js"), "// TODO in a dependency\n");
  writeFileSync(path.join(root, "notes.md"), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  writeFileSync(path.join(root, "bin.dat"), Buffer.from([1, 2, 0, 3, 4]));
  symlinkSync(path.join(outside, "secret.txt"), path.join(root, "leak.txt"));
  symlinkSync(outside, path.join(root, "leakdir"));
  symlinkSync(path.join(root, "src/a.ts"), path.join(root, "inside-link.ts"));
  symlinkSync(path.join(outside, "new.txt"), path.join(root, "dangling"));
  host = await createHost({ cwd: root, userConfigDir: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass" });
});

afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("registration", () => {
  it("registers the six built-in tools with their risks", () => {
    const risks = Object.fromEntries(host.tools.list().map((t) => [t.name, t.risk]));
    expect(risks).toEqual({
      read_file: "read",
      write_file: "write",
      edit_file: "write",
      list_files: "read",
      grep: "read",
      run_command: "execute",
    });
    expect(host.tools.get("read_file")!.inputSchema).toMatchObject({ type: "object", required: ["path"] });
  });
});

describe("read_file", () => {
  it("returns numbered lines", async () => {
    const r = await call("read_file", { path: "src/a.ts" });
    expect(r.ok).toBe(true);
    expect(r.output).toBe("1\texport const a = 1;\n2\texport const b = 2;\n3\t// TODO: fix");
  });
  it("reads a line range and says how to continue", async () => {
    const r = await call("read_file", { path: "notes.md", offset: 10, limit: 3 });
    expect(r.output).toContain("10\tline 10\n11\tline 11\n12\tline 12");
    expect(r.output).toContain("use offset 13");
  });
  it("refuses binary files, folders, missing files and offsets past the end", async () => {
    expect((await call("read_file", { path: "bin.dat" })).output).toMatch(/binary/);
    expect((await call("read_file", { path: "src" })).output).toMatch(/is a directory/);
    expect((await call("read_file", { path: "nope.txt" })).output).toMatch(/does not exist/);
    expect((await call("read_file", { path: "notes.md", offset: 99 })).output).toMatch(/has 30 lines/);
  });
  it("follows a symlink that stays inside", async () => {
    const r = await call("read_file", { path: "inside-link.ts" });
    expect(r.ok).toBe(true);
    expect(r.output).toContain("export const a = 1;");
  });
});

describe("sandbox: nothing escapes the workspace", () => {
  const escapes: [string, Record<string, unknown>][] = [
    ["read_file ..", { tool: "read_file", path: "../" + "x/secret.txt" }],
    ["read_file absolute", { tool: "read_file", path: "/etc/passwd" }],
    ["read_file symlinked file", { tool: "read_file", path: "leak.txt" }],
    ["read_file through symlinked dir", { tool: "read_file", path: "leakdir/secret.txt" }],
    ["write_file ..", { tool: "write_file", path: "../escape.txt", content: "x" }],
    ["write_file into symlinked dir", { tool: "write_file", path: "leakdir/new.txt", content: "x" }],
    ["write_file through a dangling symlink", { tool: "write_file", path: "dangling", content: "x" }],
    ["edit_file symlink", { tool: "edit_file", path: "leak.txt", old_string: "top", new_string: "bottom" }],
    ["list_files symlinked dir", { tool: "list_files", path: "leakdir" }],
    ["grep absolute", { tool: "grep", pattern: "secret", path: outsidePlaceholder() }],
    ["run_command cwd outside", { tool: "run_command", command: "pwd", cwd: "../" }],
  ];
  function outsidePlaceholder() {
    return "__OUTSIDE__";
  }
  it.each(escapes)("%s is refused with a clear message", async (_label, spec) => {
    const { tool, ...input } = spec as { tool: string } & Record<string, unknown>;
    if (input.path === "__OUTSIDE__") input.path = outside;
    if (typeof input.path === "string" && input.path.startsWith("../x/")) input.path = path.relative(root, path.join(outside, "secret.txt"));
    const r = await call(tool, input);
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe("E_PATH_OUTSIDE_WORKSPACE");
    expect(r.output).toMatch(/outside the workspace/);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
  });
  it("refuses glob patterns that climb out", async () => {
    const r = await call("list_files", { pattern: "../**/*" });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/contains "\.\."/);
    const g = await call("grep", { pattern: "secret", glob: "/etc/*" });
    expect(g.output).toMatch(/absolute/);
  });
  it("does not list or search through a symlink to the outside", async () => {
    const list = await call("list_files", { pattern: "**/*" });
    expect(list.output).not.toContain("secret.txt");
    const g = await call("grep", { pattern: "top secret" });
    expect(g.output).toMatch(/No matches/);
  });
});

describe("write_file and edit_file", () => {
  it("creates files with parent folders and overwrites", async () => {
    const r = await call("write_file", { path: "out/deep/new.txt", content: "one\n" });
    expect(r.output).toBe("Created out/deep/new.txt (4 bytes)");
    const r2 = await call("write_file", { path: "out/deep/new.txt", content: "two\n" });
    expect(r2.output).toMatch(/^Overwrote/);
    expect(readFileSync(path.join(root, "out/deep/new.txt"), "utf8")).toBe("two\n");
  });
  it("replaces a unique string exactly, with no $-pattern surprises", async () => {
    writeFileSync(path.join(root, "e.txt"), "alpha beta gamma\n");
    const r = await call("edit_file", { path: "e.txt", old_string: "beta", new_string: "$& $1 delta" });
    expect(r.ok).toBe(true);
    expect(readFileSync(path.join(root, "e.txt"), "utf8")).toBe("alpha $& $1 delta gamma\n");
  });
  it("fails clearly when the string is absent or not unique, and changes nothing", async () => {
    writeFileSync(path.join(root, "dup.txt"), "x = 1\nx = 1\n");
    const absent = await call("edit_file", { path: "dup.txt", old_string: "y = 2", new_string: "z" });
    expect(absent.ok).toBe(false);
    expect(absent.output).toMatch(/was not found in dup\.txt/);
    const twice = await call("edit_file", { path: "dup.txt", old_string: "x = 1", new_string: "x = 2" });
    expect(twice.output).toMatch(/occurs 2 times/);
    expect(readFileSync(path.join(root, "dup.txt"), "utf8")).toBe("x = 1\nx = 1\n");
    const all = await call("edit_file", { path: "dup.txt", old_string: "x = 1", new_string: "x = 2", replace_all: true });
    expect(all.output).toMatch(/2 replacements/);
    expect(readFileSync(path.join(root, "dup.txt"), "utf8")).toBe("x = 2\nx = 2\n");
  });
  it("says to use write_file for a missing file", async () => {
    const r = await call("edit_file", { path: "missing.txt", old_string: "a", new_string: "b" });
    expect(r.output).toMatch(/does not exist; use write_file/);
  });
});

describe("list_files and grep", () => {
  it("lists by glob, sorted, skipping node_modules unless named and not following symlinks", async () => {
    const r = await call("list_files", { pattern: "**/*.ts" });
    expect(r.output.split("\n")).toEqual(["src/a.ts", "src/nested/c.ts"]);
    const nm = await call("list_files", { pattern: "node_modules/**/*.js" });
    expect(nm.output).toBe("node_modules/dep/index.js");
  });
  it("limits results and says how many more there are", async () => {
    const r = await call("list_files", { pattern: "src/**/*", limit: 1 });
    expect(r.output).toMatch(/^src\/a\.ts\n\(1 more not shown/);
  });
  it("finds matches as path:line: text", async () => {
    const r = await call("grep", { pattern: "TODO", path: "src" });
    expect(r.output.split("\n")).toEqual(["src/a.ts:3: // TODO: fix", "src/nested/c.ts:1: const c = 'TODO later';"]);
  });
  it("supports a file glob, ignore_case and max_results", async () => {
    const r = await call("grep", { pattern: "todo", ignore_case: true, glob: "**/c.ts" });
    expect(r.output).toBe("src/nested/c.ts:1: const c = 'TODO later';");
    const limited = await call("grep", { pattern: "line \\d+", path: "notes.md", max_results: 2 });
    expect(limited.output).toMatch(/notes\.md:1: line 1\nnotes\.md:2: line 2\n\(28 more matches/);
  });
  it("reports an invalid regular expression", async () => {
    const r = await call("grep", { pattern: "(" });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/invalid regular expression/);
  });
});

describe("run_command", () => {
  it("returns exit code and both streams", async () => {
    const r = await call("run_command", { command: "echo out; echo err >&2" });
    expect(r.ok).toBe(true);
    expect(r.output).toMatch(/^exit code 0 \(\d+ ms\)\n--- stdout ---\nout\n--- stderr ---\nerr$/);
    expect(r.structured).toMatchObject({ exitCode: 0, timedOut: false });
  });
  it("marks a non-zero exit as an error result", async () => {
    const r = await call("run_command", { command: "exit 7" });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/^exit code 7/);
  });
  it("runs in the workspace, or in a subfolder given as cwd", async () => {
    const r = await call("run_command", { command: "pwd", cwd: "src" });
    expect(r.output).toContain(path.join(host.workspace.root, "src"));
  });
  it("stops the whole process group on timeout", async () => {
    const marker = path.join(root, "grandchild-survived");
    const r = await call("run_command", { command: `(sleep 2; touch ${marker}) & sleep 30`, timeout_ms: 300 });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/timed out after 300 ms and was stopped/);
    await new Promise((res) => setTimeout(res, 2500));
    expect(existsSync(marker)).toBe(false);
  });
  it("is cancelled by the caller's signal", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await call("run_command", { command: "sleep 30" }, ac.signal);
    expect(r.outcome).toBe("aborted");
  });
});
