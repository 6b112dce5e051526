/**
 * updateFileLocked / withFileLock in one process and across real processes: the change sees what is on
 * disk under the lock, a nested lock on the same file is refused at once (never a wait on itself), a
 * failing write leaves the file and releases the lock, and processes hammering one file lose nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { AgentError } from "../../core/index.js";
import { updateFileLocked, withFileLock, withFileLockAsync } from "../../kit/index.js";
import { DIST_INDEX_URL, DIST_KIT_URL, assertBuilt } from "../helpers/paths.js";

const tmp = () => realpathSync(mkdtempSync(path.join(os.tmpdir(), "agent-lock-")));

test("the change gets the file's text (undefined when missing); undefined back writes nothing", () => {
  const file = path.join(tmp(), "a.json");
  const seen: (string | undefined)[] = [];
  expect(updateFileLocked(file, (t) => (seen.push(t), "one\n")).written).toBe(true);
  expect(updateFileLocked(file, (t) => (seen.push(t), undefined))).toEqual({ written: false, text: "one\n" });
  expect(seen).toEqual([undefined, "one\n"]);
  expect(readFileSync(file, "utf8")).toBe("one\n");
  expect(existsSync(`${file}.lock`)).toBe(false);
});

test("a nested lock on the same file is refused at once; the outer change still lands", () => {
  const file = path.join(tmp(), "b.json");
  let inner: unknown;
  updateFileLocked(file, () => {
    try {
      updateFileLocked(file, () => "inner");
    } catch (err) {
      inner = err;
    }
    return "outer";
  });
  expect(inner).toBeInstanceOf(AgentError);
  expect((inner as AgentError).message).toContain("already being changed by this process");
  expect(readFileSync(file, "utf8")).toBe("outer");
});

test("a change that throws, or a write that fails, leaves the file as it was and releases the lock", () => {
  const dir = tmp();
  const file = path.join(dir, "c.json");
  writeFileSync(file, "kept");
  expect(() => updateFileLocked(file, () => { throw new Error("bad input"); })).toThrow("bad input");
  expect(existsSync(`${file}.lock`)).toBe(false);
  // The target is a folder: it cannot be read; the error says nothing was changed.
  expect(() => updateFileLocked(dir, () => "x")).toThrow(/could not read .* nothing was changed/);
  expect(readFileSync(file, "utf8")).toBe("kept");
  expect(existsSync(`${dir}.lock`)).toBe(false);
});

/** A real full disk needs a tmpfs mount (root, outside a locked-down CI): the test exists only where one can be made. */
function smallDisk(): string | undefined {
  const dir = tmp();
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
  return r.status === 0 ? dir : undefined;
}
const disk = smallDisk();
if (disk) {
  test("a full disk: the file is left as it was, the error says so, the lock is released", () => {
    try {
      const file = path.join(disk, "settings.json");
      writeFileSync(file, "original");
      // Fill the disk with a file of its own (written until ENOSPC).
      try {
        writeFileSync(path.join(disk, "filler"), Buffer.alloc(256 * 1024));
      } catch {
        /* full, as wanted */
      }
      expect(() => updateFileLocked(file, () => "x".repeat(128 * 1024))).toThrow(/could not write .* it was left as it was|could not lock .* nothing was changed/);
      expect(readFileSync(file, "utf8")).toBe("original");
      expect(existsSync(`${file}.lock`)).toBe(false);
    } finally {
      spawnSync("umount", [disk]);
    }
  });
}

test("a sync lock waits for an async holder in another process-like owner, and fails clearly at its bound", async () => {
  const file = path.join(tmp(), "d.json");
  writeFileSync(file, "0");
  let release!: () => void;
  const held = withFileLockAsync(file, () => new Promise<void>((r) => (release = r)));
  await new Promise((r) => setImmediate(r));
  // The same process's sync lock cannot wait on itself: refused, not hung.
  expect(() => withFileLock(file, () => 1, { waitMs: 50 })).toThrow(/already being changed by this process/);
  release();
  await held;
  expect(withFileLock(file, () => 2)).toBe(2);
});

test("8 processes × 25 read-change-writes of one file: all 200 increments kept", async () => {
  assertBuilt();
  const file = path.join(tmp(), "counter.json");
  writeFileSync(file, JSON.stringify({ n: 0, by: [] }));
  const code = `
    const { updateFileLocked } = await import(${JSON.stringify(DIST_KIT_URL)});
    for (let i = 0; i < 25; i++) updateFileLocked(${JSON.stringify(file)}, (t) => { const d = JSON.parse(t); d.n++; d.by.push(process.pid); return JSON.stringify(d); });`;
  const runs = Array.from({ length: 8 }, () =>
    new Promise<number | null>((resolve) => spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: "inherit" }).once("exit", resolve)),
  );
  expect(await Promise.all(runs)).toEqual(Array(8).fill(0));
  const data = JSON.parse(readFileSync(file, "utf8")) as { n: number; by: number[] };
  expect(data.n).toBe(200);
  expect(new Set(data.by).size).toBe(8);
}, 120_000);
