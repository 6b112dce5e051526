/** The kernel's size is counted in lines of code (tests/helpers/code-lines.ts): what counts and what does not. */
import { describe, expect, test } from "vitest";
import { codeLines } from "../helpers/code-lines.js";

describe("codeLines", () => {
  test("blank lines and comment-only lines do not count", () => {
    const src = ["/**", " * A doc comment.", " */", "", "// a note", "const a = 1; // after code", "  ", "/* one */ const b = 2;", ""].join("\n");
    expect(codeLines(src)).toBe(2);
  });

  test("a comment opener inside a string, a regular expression or a template is code", () => {
    const src = ['const s = "/* not a comment";', "const r = /\\/\\*/g;", "const t = `", "// inside a template", "${s}", "*/`;", "const d = 4 / 2 / 1;"].join("\n");
    expect(codeLines(src)).toBe(7);
  });

  test("braces inside a template's substitution do not end it", () => {
    const src = ["const t = `a ${ { x: 1 }.x } b", "// still the template", "`;", "function f() {", "  return 1;", "}", "// a comment"].join("\n");
    expect(codeLines(src)).toBe(6);
  });
});
