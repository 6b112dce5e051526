/**
 * edit_file edits bytes in the file's own encoding and keeps every byte it does not replace; read_file
 * says what it read a file as, and streams: a 1 GiB file read with `limit: 5` returns its first lines.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";

let root: string;
let host: Host;
const file = (name: string) => path.join(root, name);
const call = (name: string, input: unknown) => host.tools.call(name, input);

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agent-encodings-"));
  host = await createHost({ cwd: root, userConfigDir: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass" });
});

afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

/** Every byte of `before` outside [at, at+removed) is in `after`, in place, around `inserted`. */
function expectOnlyChanged(before: Buffer, after: Buffer, at: number, removed: number, inserted: Buffer): void {
  expect(after.subarray(0, at).equals(before.subarray(0, at))).toBe(true);
  expect(after.subarray(at, at + inserted.length).equals(inserted)).toBe(true);
  expect(after.subarray(at + inserted.length).equals(before.subarray(at + removed))).toBe(true);
}

describe("edit_file on a Latin-1 file", () => {
  // 200 KB of French in Latin-1: é, è, à, ç, « » are single bytes that are not UTF-8.
  const line = Buffer.from("Le café était très «chaud» à Besançon; déjà vu.\n", "latin1");
  const before = Buffer.concat([...Array.from({ length: 2000 }, () => line), Buffer.from("La valeur est ANCIENNE ici.\n", "latin1"), ...Array.from({ length: 2000 }, () => line)]);

  it("changes one ASCII word and keeps every other byte", async () => {
    writeFileSync(file("latin1.txt"), before);
    const r = await call("edit_file", { path: "latin1.txt", old_string: "ANCIENNE", new_string: "NOUVELLE valeur" });
    expect(r.output).toMatch(/1 replacement \(ASCII in a file that is not UTF-8; every other byte kept\)/);
    const after = readFileSync(file("latin1.txt"));
    expectOnlyChanged(before, after, before.indexOf("ANCIENNE"), 8, Buffer.from("NOUVELLE valeur"));
    expect(after.includes(Buffer.from("\uFFFD", "utf8"))).toBe(false);
  });

  it("refuses a non-ASCII old_string or new_string, and changes nothing", async () => {
    writeFileSync(file("latin1.txt"), before);
    const r = await call("edit_file", { path: "latin1.txt", old_string: "café", new_string: "thé" });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/not valid UTF-8.*only where old_string and new_string are both ASCII/);
    const r2 = await call("edit_file", { path: "latin1.txt", old_string: "ANCIENNE", new_string: "née" });
    expect(r2.ok).toBe(false);
    expect(readFileSync(file("latin1.txt")).equals(before)).toBe(true);
  });

  it("read_file shows it as Latin-1 and says so", async () => {
    writeFileSync(file("latin1.txt"), before);
    const r = await call("read_file", { path: "latin1.txt", limit: 1 });
    expect(r.output).toContain("1\tLe café était très «chaud» à Besançon; déjà vu.");
    expect(r.output).toContain("(read as Latin-1: not valid UTF-8)");
  });

  it("refuses a match that would start inside a Shift-JIS character", async () => {
    // 0x83 0x41 is one Shift-JIS character (ア); "A" (0x41) alone must not be edited out of it.
    const sjis = Buffer.from([0x83, 0x41, 0x20, 0x78, 0x0a]);
    writeFileSync(file("sjis.txt"), sjis);
    const r = await call("edit_file", { path: "sjis.txt", old_string: "A", new_string: "B" });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/could be Shift-JIS.*middle of a character/);
    expect(readFileSync(file("sjis.txt")).equals(sjis)).toBe(true);
    expect((await call("edit_file", { path: "sjis.txt", old_string: "x", new_string: "y" })).ok).toBe(true);
    expect(readFileSync(file("sjis.txt")).equals(Buffer.from([0x83, 0x41, 0x20, 0x79, 0x0a]))).toBe(true);
  });
});

describe("edit_file keeps line endings", () => {
  it("a CRLF file stays CRLF when old_string and new_string use LF", async () => {
    writeFileSync(file("crlf.txt"), "one\r\ntwo\r\nthree\r\n");
    const r = await call("edit_file", { path: "crlf.txt", old_string: "one\ntwo\n", new_string: "one\ninserted\ntwo\n" });
    expect(r.ok).toBe(true);
    expect(readFileSync(file("crlf.txt"), "latin1")).toBe("one\r\ninserted\r\ntwo\r\nthree\r\n");
  });
  it("an LF file stays LF, and a mixed file is edited as spelt", async () => {
    writeFileSync(file("lf.txt"), "a\nb\n");
    await call("edit_file", { path: "lf.txt", old_string: "a\n", new_string: "a\nz\n" });
    expect(readFileSync(file("lf.txt"), "latin1")).toBe("a\nz\nb\n");
    writeFileSync(file("mixed.txt"), "a\r\nb\nc\r\n");
    await call("edit_file", { path: "mixed.txt", old_string: "b\nc", new_string: "B\nC" });
    expect(readFileSync(file("mixed.txt"), "latin1")).toBe("a\r\nB\nC\r\n");
  });
  it("read_file shows CRLF lines without the CR and says so", async () => {
    writeFileSync(file("crlf2.txt"), "x\r\ny\r\n");
    const r = await call("read_file", { path: "crlf2.txt" });
    expect(r.output).toBe("1\tx\n2\ty\n(lines end in CRLF, not shown; edit_file keeps them)");
  });
});

describe("BOMs and UTF-16", () => {
  it("a UTF-8 file with a BOM keeps it", async () => {
    const before = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("naïve café\n", "utf8")]);
    writeFileSync(file("bom8.txt"), before);
    const r = await call("edit_file", { path: "bom8.txt", old_string: "café", new_string: "thé" });
    expect(r.output).toMatch(/UTF-8 with BOM/);
    expect(readFileSync(file("bom8.txt")).equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("naïve thé\n", "utf8")]))).toBe(true);
  });

  for (const big of [false, true]) {
    const name = big ? "UTF-16 BE" : "UTF-16 LE";
    const enc = (s: string) => {
      const le = Buffer.from(s, "utf16le");
      return big ? le.swap16() : le;
    };
    const bom = Buffer.from(big ? [0xfe, 0xff] : [0xff, 0xfe]);
    it(`a ${name} file is edited in ${name} and keeps its BOM and CRLF`, async () => {
      writeFileSync(file("u16.txt"), Buffer.concat([bom, enc("Grüße 😀\r\nzweite Zeile\r\n")]));
      const r = await call("edit_file", { path: "u16.txt", old_string: "Grüße 😀\nzweite", new_string: "Hallo 🎉\nneue" });
      expect(r.output).toContain(name);
      expect(readFileSync(file("u16.txt")).equals(Buffer.concat([bom, enc("Hallo 🎉\r\nneue Zeile\r\n")]))).toBe(true);
    });
    it(`read_file reads a ${name} file by its BOM`, async () => {
      writeFileSync(file("u16r.txt"), Buffer.concat([bom, enc("erste\nzweite ü\n")]));
      const r = await call("read_file", { path: "u16r.txt" });
      expect(r.output).toBe(`1\terste\n2\tzweite ü\n(read as ${name}, by its BOM)`);
    });
  }

  it("a UTF-16 file with an odd byte count is refused, unchanged", async () => {
    const before = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("abc", "utf16le"), Buffer.from([0x41])]);
    writeFileSync(file("odd16.txt"), before);
    const r = await call("edit_file", { path: "odd16.txt", old_string: "b", new_string: "x" });
    expect(r.output).toMatch(/odd number of bytes/);
    expect(readFileSync(file("odd16.txt")).equals(before)).toBe(true);
  });
});

describe("read_file streams", () => {
  it("reads the first 5 lines of a 1 GiB file (sparse after its text)", async () => {
    const big = file("huge.log");
    const fd = openSync(big, "w");
    writeSync(fd, Array.from({ length: 10_000 }, (_, i) => `entry ${i + 1}`).join("\n") + "\n");
    closeSync(fd);
    truncateSync(big, 1 << 30);
    const r = await call("read_file", { path: "huge.log", limit: 5 });
    expect(r.ok).toBe(true);
    expect(r.output).toBe("1\tentry 1\n2\tentry 2\n3\tentry 3\n4\tentry 4\n5\tentry 5\n(lines 1-5 of a 1.0 GiB file, more follow; use offset 6 to read on)");
    const r2 = await call("read_file", { path: "huge.log", offset: 9999, limit: 2 });
    expect(r2.output).toContain("9999\tentry 9999\n10000\tentry 10000");
    rmSync(big);
  });

  it("cuts a 3 MB line at 2000 characters and still finds the next line", async () => {
    writeFileSync(file("longline.txt"), "é".repeat(1_500_000) + "\nnext\n");
    const r = await call("read_file", { path: "longline.txt" });
    expect(r.output).toBe(`1\t${"é".repeat(2000)}… (line cut at 2000 characters)\n2\tnext`);
  });

  it("an empty file says so; an offset past the end gives the count", async () => {
    writeFileSync(file("empty.txt"), "");
    expect((await call("read_file", { path: "empty.txt" })).output).toBe("(empty.txt is empty)");
    writeFileSync(file("three.txt"), "a\nb\nc");
    expect((await call("read_file", { path: "three.txt", offset: 4 })).output).toMatch(/has 3 lines; offset 4 is past the end/);
    expect((await call("read_file", { path: "three.txt", offset: 3 })).output).toBe("3\tc");
  });
});
