import { expect, test } from "vitest";
import { parseJsonLines } from "../../kit/index.js";

test("parseJsonLines keeps each object line and skips a torn tail, blank lines and non-objects", () => {
  const text = '{"a":1}\n\n{"b":[2]}\r\n[1,2]\n"str"\n{"c":3}\n{"torn":';
  expect(parseJsonLines(text)).toEqual([{ a: 1 }, { b: [2] }, { c: 3 }]);
  expect(parseJsonLines("")).toEqual([]);
});

test("oneLine flattens white space and cuts with an ellipsis at max", async () => {
  const { oneLine } = await import("../../kit/index.js");
  expect(oneLine("  a\n\tb   c ")).toBe("a b c");
  expect(oneLine("abcdef", 4)).toBe("abc…");
  expect(oneLine("abcd", 4)).toBe("abcd");
});
