import { describe, expect, test } from "vitest";
import { closestNames, editDistance } from "../../kit/text/suggest.js";

describe("did-you-mean suggestions", () => {
  test("edit distance is case-insensitive and counts insertions, deletions and substitutions", () => {
    expect(editDistance("read_file", "READ_FILE")).toBe(0);
    expect(editDistance("red_file", "read_file")).toBe(1);
    expect(editDistance("read_fiel", "read_file")).toBe(2);
    expect(editDistance("a", "a-very-long-name-indeed")).toBe(99);
  });
  test("closest names: within the limit, nearest first, at most max", () => {
    const names = ["read_file", "write_file", "edit_file", "grep"];
    expect(closestNames("read_fil", names)).toEqual(["read_file"]);
    expect(closestNames("rite_file", names)).toEqual(["write_file", "read_file"]); // distances 1 and 3; edit_file is 3 too but listed later
    expect(closestNames("rite_file", names, { max: 1 })).toEqual(["write_file"]);
    expect(closestNames("zzz", names)).toEqual([]);
  });
});
