/**
 * write_file and edit_file replace a file atomically (temp file beside it, fsync, rename): the mode is
 * kept, a hard-linked target and a folder that cannot hold a temp file are refused, and a full disk
 * leaves the original untouched and no temp file behind. A full disk is a failing write through the
 * replace's seam (ENOSPC after N bytes), which every machine can run.
 */
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { replaceIo } from "../../../plugins/tools/_atomic-replace.js";
import toolsPlugin from "../../../plugins/tools/index.js";

let root: string;
let host: Host;
const file = (name: string) => path.join(root, name);
const call = (name: string, input: unknown) => host.tools.call(name, input);
const realWrite = replaceIo.write;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agent-atomic-"));
  host = await createHost({ cwd: root, userConfigDir: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass" });
});

afterEach(() => {
  replaceIo.write = realWrite;
});

afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

/** Names in a folder that look like a leftover temp file. */
const temps = (dir: string) => readdirSync(dir).filter((n) => n.includes(".agent-") && n.endsWith(".tmp"));

describe("atomic replace", () => {
  it("keeps the mode of the file it replaces, and leaves no temp file", async () => {
    writeFileSync(file("run.sh"), "#!/bin/sh\necho old\n");
    chmodSync(file("run.sh"), 0o751);
    expect((await call("edit_file", { path: "run.sh", old_string: "old", new_string: "new" })).ok).toBe(true);
    expect(statSync(file("run.sh")).mode & 0o7777).toBe(0o751);
    expect((await call("write_file", { path: "run.sh", content: "#!/bin/sh\necho written\n" })).ok).toBe(true);
    expect(statSync(file("run.sh")).mode & 0o7777).toBe(0o751);
    expect(readFileSync(file("run.sh"), "utf8")).toBe("#!/bin/sh\necho written\n");
    expect(temps(root)).toEqual([]);
  });

  it("replaces the file (a new inode), so a reader holding the old one still sees the old content", async () => {
    writeFileSync(file("swap.txt"), "before\n");
    const ino = statSync(file("swap.txt")).ino;
    await call("write_file", { path: "swap.txt", content: "after\n" });
    expect(statSync(file("swap.txt")).ino).not.toBe(ino);
  });

  it("refuses a target with other hard links, for both tools, and changes neither name", async () => {
    writeFileSync(file("linked.txt"), "shared\n");
    linkSync(file("linked.txt"), file("other-name.txt"));
    for (const [tool, input] of [
      ["write_file", { path: "linked.txt", content: "x" }],
      ["edit_file", { path: "linked.txt", old_string: "shared", new_string: "x" }],
    ] as const) {
      const r = await call(tool, input);
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(/has 2 hard links.*Not changed/);
    }
    expect(readFileSync(file("linked.txt"), "utf8")).toBe("shared\n");
    expect(readFileSync(file("other-name.txt"), "utf8")).toBe("shared\n");
    expect(temps(root)).toEqual([]);
  });

  it("refuses clearly where the folder cannot hold a temp file (a read-only folder; as root, which may write there, the edit is made)", async () => {
    mkdirSync(file("ro"));
    writeFileSync(file("ro/keep.txt"), "keep\n");
    chmodSync(file("ro"), 0o555);
    try {
      const r = await call("edit_file", { path: "ro/keep.txt", old_string: "keep", new_string: "lost" });
      if (process.getuid?.() === 0) {
        // As root the folder is writable anyway: the edit is made, atomically, and no temp is left.
        expect(r.ok).toBe(true);
      } else {
        expect(r.ok).toBe(false);
        expect(r.output).toMatch(/folder cannot hold the temp file an atomic write needs \(EACCES\)/);
        expect(readFileSync(file("ro/keep.txt"), "utf8")).toBe("keep\n");
      }
      expect(temps(file("ro"))).toEqual([]);
    } finally {
      chmodSync(file("ro"), 0o755);
    }
  });
});

/** A write that fails with ENOSPC once `room` bytes have been written, as a full disk does. */
function fillDiskAfter(room: number): void {
  let written = 0;
  replaceIo.write = async (fd, buf, offset, length, position) => {
    if (written + length > room) {
      const n = Math.max(0, room - written);
      if (n > 0) {
        written += n;
        return realWrite(fd, buf, offset, n, position);
      }
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
    }
    written += length;
    return realWrite(fd, buf, offset, length, position);
  };
}

describe("a full disk (a failing write through the seam)", () => {
  const before = Buffer.from("x".repeat(300_000) + "\nOLD\n" + "y".repeat(300_000) + "\n");

  for (const [tool, input] of [
    ["edit_file", { path: "full.txt", old_string: "OLD", new_string: "NEW" }],
    ["write_file", { path: "full.txt", content: "z".repeat(500_000) }],
  ] as const) {
    it(`${tool}: the original is untouched, the error says the disk is full, no temp file is left`, async () => {
      writeFileSync(file("full.txt"), before);
      fillDiskAfter(200_000);
      const r = await call(tool, input);
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(/full\.txt was not changed: the disk is full \(ENOSPC\); the original is untouched/);
      expect(readFileSync(file("full.txt")).equals(before)).toBe(true);
      expect(temps(root)).toEqual([]);
    });
  }

  it("a new file is not created by a failed write", async () => {
    fillDiskAfter(10);
    const r = await call("write_file", { path: "new-on-full.txt", content: "0123456789abcdef" });
    expect(r.output).toMatch(/disk is full/);
    expect(readdirSync(root)).not.toContain("new-on-full.txt");
    expect(temps(root)).toEqual([]);
  });
});
