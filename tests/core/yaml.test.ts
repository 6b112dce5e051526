/** Frontmatter YAML: parsed with js-yaml, and a document whose aliases would blow up a later walk is refused. */
import { expect, test } from "vitest";
import { parseYaml } from "../../kit/index.js";

test("plain frontmatter parses; a syntax error gives the parser's first line", () => {
  expect(parseYaml("name: pdf\ndescription: Fill forms\nmetadata:\n  owner: team")).toEqual({ name: "pdf", description: "Fill forms", metadata: { owner: "team" } });
  expect(() => parseYaml('name: "open')).toThrow(/^unexpected end of the stream within a double quoted scalar/);
});

test("a billion-laughs document is refused before anything walks it, and a few aliases are fine", () => {
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(",")}]`);
  expect(() => parseYaml(bomb.join("\n"))).toThrow(/more than 10000 values \(aliases counted each time they are used\)/);
  expect(parseYaml("base: &b { x: 1 }\nother: *b")).toEqual({ base: { x: 1 }, other: { x: 1 } });
});
