/**
 * Honest caps for run_command (issue 20): a command printing 50 MB gives the model its first and last
 * 32 KiB and the true total; the capture holds a fixed amount whatever the command prints.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import { HEAD_TAIL_BYTES, HeadTailCapture } from "../../../plugins/tools/_head-tail.js";
import toolsPlugin from "../../../plugins/tools/index.js";

let root: string;
let host: Host;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agent-caps-"));
  host = await createHost({ cwd: root, userConfigDir: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass" });
});

afterAll(async () => {
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

const MB50 = 50_000_000;

test("50 MB on stdout: the head, the tail (where the error is) and the true total reach the model", { timeout: 120_000 }, async () => {
  const command = `printf 'FIRST-LINE\\n'; head -c ${MB50} /dev/zero | tr '\\0' x; printf '\\nerror: the real failure\\n'; echo on-stderr >&2; exit 3`;
  const r = await host.tools.call("run_command", { command });
  const total = 11 + MB50 + 25;
  expect(r.ok).toBe(false);
  expect(r.truncated).not.toBe(true);
  expect(r.output).toMatch(/^exit code 3 \(\d+ ms\)\n--- stdout ---\nFIRST-LINE\nx/);
  expect(r.output).toContain(`[… ${total} bytes in all, ${total - 2 * HEAD_TAIL_BYTES} not shown; above, the first ${HEAD_TAIL_BYTES}, below, the last ${HEAD_TAIL_BYTES} …]`);
  expect(r.output).toMatch(/x\nerror: the real failure\n--- stderr ---\non-stderr$/);
  expect(Buffer.byteLength(r.output)).toBeLessThan(2 * HEAD_TAIL_BYTES + 1024);
});

test("output that fits is returned whole, with no note", async () => {
  const r = await host.tools.call("run_command", { command: `head -c ${2 * HEAD_TAIL_BYTES} /dev/zero | tr '\\0' y` });
  expect(r.output).toBe(`exit code 0 (${/\((\d+) ms\)/.exec(r.output)?.[1]} ms)\n--- stdout ---\n${"y".repeat(2 * HEAD_TAIL_BYTES)}`);
});

test("the capture holds a fixed amount while 50 MB go through it, in chunks of any size", () => {
  const c = new HeadTailCapture(1024);
  const held = c.held;
  let sent = 0;
  for (let i = 0; sent < MB50; i++) {
    const size = [1, 7, 65_536, 3_000_000][i % 4];
    c.push(Buffer.alloc(size, 0x61 + (i % 26)));
    sent += size;
    expect(c.held).toBe(held);
  }
  expect(held).toBe(2048);
  expect(c.total).toBe(sent);
  expect(c.text()).toContain(`[… ${sent} bytes in all, ${sent - 2048} not shown;`);
});

test("cuts fall on character boundaries: no half character becomes U+FFFD", () => {
  const c = new HeadTailCapture(8);
  // "é" is two bytes: the 8-byte head ends in the middle of one and the tail starts in the middle of another.
  c.push(Buffer.from("abcdefgé" + "-".repeat(100) + "é1234567"));
  const t = c.text();
  expect(t).not.toContain("\uFFFD");
  expect(t.startsWith("abcdefg\n[… 118 bytes in all, 104 not shown; above, the first 7, below, the last 7 …]")).toBe(true);
  expect(t.endsWith("\n1234567")).toBe(true);
});

test("the tail keeps the newest bytes in order across the ring's wrap", () => {
  const c = new HeadTailCapture(4);
  for (const part of ["HEAD", "12", "345", "6", "789"]) c.push(Buffer.from(part));
  expect(c.text()).toBe("HEAD\n[… 13 bytes in all, 5 not shown; above, the first 4, below, the last 4 …]\n6789");
});
