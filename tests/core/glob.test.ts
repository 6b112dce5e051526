import realPicomatch from "picomatch";
import { expect, test } from "vitest";
import { picomatch } from "../../kit/index.js";

test("the lazily loaded picomatch matches and scans as picomatch does", () => {
  const cases: [string | string[], string[]][] = [
    ["src/**/*.ts", ["src/a.ts", "src/x/y.ts", "src/a.js", ".hidden/a.ts"]],
    [["*.md", "docs/**"], ["README.md", "docs/a/b.txt", "src/a.md"]],
  ];
  for (const [glob, paths] of cases) {
    const ours = picomatch(glob, { dot: true });
    const theirs = realPicomatch(glob, { dot: true });
    expect(paths.map((p) => ours(p))).toEqual(paths.map((p) => theirs(p)));
  }
  expect(picomatch.scan("src/**/*.ts")).toMatchObject({ base: "src", glob: "**/*.ts", isGlob: true });
});
