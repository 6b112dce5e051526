/** capOutput: keep the head, never split a UTF-8 character, always say what was cut. */
import { describe, expect, test } from "vitest";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, capOutput } from "../../kit/text/output.js";

describe("capOutput", () => {
  test("defaults: 64 KB and 60 s", () => {
    expect(DEFAULT_MAX_OUTPUT_BYTES).toBe(65_536);
    expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
  });

  test("under or at the cap: unchanged, with the byte size", () => {
    expect(capOutput("héllo", 6)).toEqual({ text: "héllo", truncated: false, bytes: 6 });
    expect(capOutput("", 1)).toEqual({ text: "", truncated: false, bytes: 0 });
  });

  test("over the cap: head kept and a line says how many bytes were cut", () => {
    const r = capOutput("0123456789", 4);
    expect(r).toEqual({ text: "0123\n[output truncated: 6 of 10 bytes cut; the first 4 bytes are shown]", truncated: true, bytes: 10 });
  });

  // every cut position through 2-, 3- and 4-byte characters
  test.each([
    ["2-byte", "é"],
    ["3-byte", "€"],
    ["4-byte", "😀"],
  ])("never splits a %s character at any cap", (_k, ch) => {
    const text = `a${ch.repeat(5)}b`;
    const total = Buffer.byteLength(text);
    for (let cap = 1; cap < total; cap++) {
      const r = capOutput(text, cap);
      const head = r.text.slice(0, r.text.lastIndexOf("\n[output truncated"));
      expect(r.truncated).toBe(true);
      expect(head).not.toContain("\uFFFD");
      expect(text.startsWith(head)).toBe(true);
      const kept = Buffer.byteLength(head);
      expect(kept).toBeLessThanOrEqual(cap);
      expect(kept).toBeGreaterThan(cap - Buffer.byteLength(ch));
      expect(r.text).toContain(`[output truncated: ${total - kept} of ${total} bytes cut; the first ${kept} bytes are shown]`);
    }
  });

  test("a string whose UTF-16 length is small but byte length is over the cap is still cut", () => {
    const r = capOutput("€".repeat(10), 20); // 10 units, 30 bytes
    expect(r.truncated).toBe(true);
    expect(r.text.startsWith("€".repeat(6) + "\n")).toBe(true);
  });
});
