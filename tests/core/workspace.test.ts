/** The workspace: `..`, absolute paths and symlinks cannot lead outside the roots. */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { AgentError } from "../../kit/errors.js";
import { createWorkspace } from "../../core/host/workspace.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";

afterAll(cleanupTemp);

/** base/root (the workspace) with files, base/outside with a secret, base/extra as a second root. */
function setup() {
  const base = tempDir();
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  const extra = path.join(base, "extra");
  for (const d of [root, path.join(root, "src"), outside, extra]) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(root, "src", "a.ts"), "a");
  writeFileSync(path.join(outside, "secret.txt"), "s");
  writeFileSync(path.join(extra, "shared.txt"), "x");
  return { base, root, outside, extra, ws: createWorkspace(root) };
}

function refused(fn: () => unknown): AgentError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AgentError);
    expect((err as AgentError).code).toBe("E_PATH_OUTSIDE_WORKSPACE");
    return err as AgentError;
  }
  throw new Error("expected the path to be refused");
}

describe("workspace.resolve", () => {
  test("paths inside resolve to real absolute paths", () => {
    const { root, ws } = setup();
    expect(ws.root).toBe(root);
    expect(ws.roots).toEqual([root]);
    expect(ws.resolve("src/a.ts")).toBe(path.join(root, "src/a.ts"));
    expect(ws.resolve("./src/../src/a.ts")).toBe(path.join(root, "src/a.ts"));
    expect(ws.resolve(".")).toBe(root);
    expect(ws.resolve(path.join(root, "src"))).toBe(path.join(root, "src"));
    expect(ws.relative(path.join(root, "src/a.ts"))).toBe(path.join("src", "a.ts"));
    expect(ws.relative(root)).toBe(".");
  });

  test("`..` out of the root is refused, with a message saying where tools may go", () => {
    const { root, ws } = setup();
    const e = refused(() => ws.resolve("../outside/secret.txt"));
    expect(e.message).toContain('Path "../outside/secret.txt" is outside the workspace');
    expect(e.message).toContain(`tools may only touch ${root}`);
    expect(e.message).toContain("workspace.roots");
    refused(() => ws.resolve("src/../../outside"));
    refused(() => ws.resolve(".."));
  });

  test("absolute paths outside are refused", () => {
    const { outside, ws } = setup();
    refused(() => ws.resolve(path.join(outside, "secret.txt")));
    refused(() => ws.resolve("/etc/passwd"));
    refused(() => ws.resolve("/"));
  });

  test("a symlink pointing outside is refused, for a file and for a folder (and paths under it)", () => {
    const { root, outside, ws } = setup();
    symlinkSync(path.join(outside, "secret.txt"), path.join(root, "file-link"));
    symlinkSync(outside, path.join(root, "dir-link"));
    const e = refused(() => ws.resolve("file-link"));
    expect(e.message).toContain("it resolves through a symlink to");
    refused(() => ws.resolve("dir-link"));
    refused(() => ws.resolve("dir-link/secret.txt"));
    refused(() => ws.resolve("dir-link/new/file.txt"));
  });

  test("a dangling symlink pointing outside is refused (writing through it would create the target)", () => {
    const { root, outside, ws } = setup();
    symlinkSync(path.join(outside, "not-yet.txt"), path.join(root, "dangling"));
    symlinkSync("../outside/later", path.join(root, "dangling-rel"));
    refused(() => ws.resolve("dangling"));
    refused(() => ws.resolve("dangling-rel/x.txt"));
    // a dangling link that stays inside is fine
    symlinkSync("src/new.ts", path.join(root, "inside-dangling"));
    expect(ws.resolve("inside-dangling")).toBe(path.join(root, "src/new.ts"));
  });

  test("symlink loops are refused with a clear error", () => {
    const { root, ws } = setup();
    symlinkSync("loop-b", path.join(root, "loop-a"));
    symlinkSync("loop-a", path.join(root, "loop-b"));
    const e = refused(() => ws.resolve("loop-a/x"));
    expect(e.message).toContain("Too many levels of symbolic links");
  });

  test("a symlink inside the workspace is fine and resolves to its target", () => {
    const { root, ws } = setup();
    symlinkSync(path.join(root, "src"), path.join(root, "src-link"));
    expect(ws.resolve("src-link/a.ts")).toBe(path.join(root, "src/a.ts"));
  });

  test("non-existent nested paths resolve (for files about to be written)", () => {
    const { root, ws } = setup();
    expect(ws.resolve("new/deeply/nested/file.txt")).toBe(path.join(root, "new/deeply/nested/file.txt"));
    expect(ws.resolve("src/a.ts/not-a-dir")).toBe(path.join(root, "src/a.ts/not-a-dir"));
  });

  test("names that merely start with dots are inside", () => {
    const { root, ws } = setup();
    expect(ws.resolve("..notes")).toBe(path.join(root, "..notes"));
    expect(ws.resolve("src/...")).toBe(path.join(root, "src/..."));
  });

  test("extra roots allow their folders, and only those", () => {
    const { root, extra, outside, base } = setup();
    const ws = createWorkspace(root, [extra]);
    expect(ws.roots).toEqual([root, extra]);
    expect(ws.resolve(path.join(extra, "shared.txt"))).toBe(path.join(extra, "shared.txt"));
    expect(ws.resolve("../extra/shared.txt")).toBe(path.join(extra, "shared.txt"));
    refused(() => ws.resolve("../outside/secret.txt"));
    refused(() => ws.resolve(base));
    expect(() => ws.resolve(path.join(outside, "x"))).toThrow(/tools may only touch .*root, .*extra/);
  });

  test("a root given through a symlink is compared by its real path", () => {
    const { base, root } = setup();
    symlinkSync(root, path.join(base, "root-link"));
    const ws = createWorkspace(path.join(base, "root-link"));
    expect(ws.root).toBe(root);
    expect(ws.resolve("src/a.ts")).toBe(path.join(root, "src/a.ts"));
    refused(() => ws.resolve("../outside"));
  });

  test("empty paths and NUL bytes are refused", () => {
    const { ws } = setup();
    refused(() => ws.resolve(""));
    refused(() => ws.resolve("src/a.ts\0.png"));
  });

  test("~ is not expanded to the home folder", () => {
    const { root, ws } = setup();
    expect(ws.resolve("~/x")).toBe(path.join(root, "~/x"));
  });

  test("the workspace object is frozen", () => {
    const { ws } = setup();
    expect(Object.isFrozen(ws)).toBe(true);
    expect(Object.isFrozen(ws.roots)).toBe(true);
  });
});
