import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { writeFileAtomic } from "../../kit/index.js";

test("writeFileAtomic replaces the content in one step, with exactly the mode asked, leaving no temp file", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-atomic-"));
  const file = path.join(dir, "tokens.json");
  writeFileSync(file, "old");
  // A temp file left by a crash of this pid, readable by all: it must not keep its mode.
  writeFileSync(`${file}.${process.pid}.tmp`, "stale");
  chmodSync(`${file}.${process.pid}.tmp`, 0o644);
  writeFileAtomic(file, "new\n", 0o600);
  expect(readFileSync(file, "utf8")).toBe("new\n");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readdirSync(dir)).toEqual(["tokens.json"]);
  // A rename that fails (the target is a folder) throws and leaves no temp file behind.
  expect(() => writeFileAtomic(dir, "x")).toThrow();
  expect(existsSync(`${dir}.${process.pid}.tmp`)).toBe(false);
});
