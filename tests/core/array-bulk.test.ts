/** appendAll / replaceAll: in-place bulk edits that survive lengths where a spread overflows the stack. */
import { expect, test } from "vitest";
import { appendAll, replaceAll } from "../../kit/array-bulk.js";

const BIG = 500_000;
const big = () => Array.from({ length: BIG }, (_, i) => ({ i }));

test("a spread of this many items overflows the stack (why the helpers exist)", () => {
  const items = big();
  expect(() => [].splice(0, 0, ...(items as never[]))).toThrow(RangeError);
});

test("replaceAll swaps in 500 000 items in place, keeping the array's identity", () => {
  const target = [{ i: -1 }, { i: -2 }];
  const same = target;
  const items = big();
  replaceAll(target, items);
  expect(target).toBe(same);
  expect(target).toHaveLength(BIG);
  expect(target[0]).toBe(items[0]);
  expect(target[BIG - 1]).toBe(items[BIG - 1]);
  replaceAll(target, target);
  expect(target).toHaveLength(BIG);
  replaceAll(target, []);
  expect(target).toHaveLength(0);
});

test("appendAll adds 500 000 items after the ones there", () => {
  const target = [{ i: -1 }];
  appendAll(target, big());
  expect(target).toHaveLength(BIG + 1);
  expect(target[0]).toEqual({ i: -1 });
  expect(target[BIG]).toEqual({ i: BIG - 1 });
});
