/**
 * simpleFrontmatter reads common frontmatter without js-yaml (start-up loads no YAML parser for the
 * bundled skills). Where it answers, its answer must be js-yaml's; everything else it leaves to js-yaml.
 * Compared on every SKILL.md and Markdown command of the repository and on hand-made edge cases.
 */
import { readFileSync } from "node:fs";
import { load } from "js-yaml";
import { glob } from "tinyglobby";
import { describe, expect, test } from "vitest";
import { parseFrontmatterYaml, simpleFrontmatter } from "../../kit/text/yaml.js";
import { REPO_ROOT } from "../helpers/paths.js";

function frontmatter(file: string): string | undefined {
  return /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, "utf8"))?.[1];
}

function jsYaml(text: string): unknown {
  try {
    return load(text);
  } catch {
    return "js-yaml: error";
  }
}

describe("simpleFrontmatter agrees with js-yaml or leaves the text to it", () => {
  test("every SKILL.md and Markdown command in the repository", async () => {
    const files = await glob(["**/SKILL.md", "**/commands/**/*.md", "**/agents/**/*.md", "templates/**/*.md"], { cwd: REPO_ROOT, absolute: true, ignore: ["node_modules/**", "**/node_modules/**", "dist/**"] });
    let answered = 0;
    for (const file of files) {
      const text = frontmatter(file);
      if (text === undefined) continue;
      const simple = simpleFrontmatter(text);
      if (simple === undefined) continue;
      answered++;
      expect(simple, file).toEqual(jsYaml(text));
    }
    expect(answered).toBeGreaterThan(3);
  });

  test("the bundled skills need no YAML parser", () => {
    for (const name of ["agent-host-plugin", "mcp-troubleshooting"]) {
      const text = frontmatter(`${REPO_ROOT}/skills/${name}/SKILL.md`)!;
      expect(simpleFrontmatter(text), name).toEqual(load(text));
    }
  });

  const cases = [
    "name: a\ndescription: Plain words, with commas (and brackets) and it's fine",
    'description: Say "hi" to them',
    "description: >-\n  one\n  two\n  three",
    "description: >-\n  one\n    two",
    "description: >-\n  one\n\n  two",
    "description: >\n  one\n  two",
    "description: |-\n  one\n  two",
    "metadata:\n  audience: plugin authors\n  level: two",
    "metadata:\n  - a\n  - b",
    "name: a\nname: b",
    "a: true",
    "a: No",
    "a: 12",
    "a: 1.5 apples",
    "a: .inf",
    "a: ~",
    "a:",
    "a: x: y",
    "a: x:",
    "a: @Observable thing",
    "a: text # comment",
    "# comment\na: b",
    "a: 'quoted'",
    "a: [x, y]",
    "a: {x: 1}",
    "a: *ref",
    "a: &anchor x",
    "a: !tag x",
    "a: `code`",
    "a: x\n  continued",
    "__proto__: x",
    "a:\tb",
    "a: b\t",
    "a: http://example.com/x",
    "allowed-tools: Read, Grep, Bash(git status:*)",
    "a: b\n\nc: d",
    "a: b\r\nc: d",
    "",
  ];
  test.each(cases)("%j", (text) => {
    const simple = simpleFrontmatter(text);
    if (simple !== undefined) expect(simple).toEqual(jsYaml(text));
  });

  test("what it answers, and what it leaves", () => {
    expect(simpleFrontmatter("description: >-\n  one\n  two")).toEqual({ description: "one two" });
    expect(simpleFrontmatter("metadata:\n  audience: plugin authors")).toEqual({ metadata: { audience: "plugin authors" } });
    for (const text of ["a: true", "a: 12", "a: x: y", "description: >-\n  one\n    two", "a: b\n  c", "a: 'q'"]) expect(simpleFrontmatter(text), text).toBeUndefined();
  });

  test("parseFrontmatterYaml still reads the rest with js-yaml, and its lenient second reading", () => {
    expect(parseFrontmatterYaml("a: [x, y]")).toEqual({ value: { a: ["x", "y"] }, quoted: false });
    expect(parseFrontmatterYaml("description: Use when: the user asks")).toEqual({ value: { description: "Use when: the user asks" }, quoted: true });
  });
});
