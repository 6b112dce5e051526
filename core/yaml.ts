/**
 * YAML for frontmatter (SKILL.md, Markdown commands): js-yaml, the parser gray-matter and cosmiconfig
 * use, because it loads in a fifth of the time of `yaml` and frontmatter is read on every start (the
 * bundled skills). js-yaml shares an aliased node instead of copying it, so a "billion laughs" file
 * costs nothing to parse but would explode when walked or stringified later: a parsed value is
 * refused when walking it (aliases counted every time) passes `maxNodes`.
 */
import { load } from "js-yaml";

export const MAX_YAML_NODES = 10_000;

/** The parsed document; throws an Error whose message is the parser's first line, or says it is too large. */
export function parseYaml(text: string, maxNodes = MAX_YAML_NODES): unknown {
  let value: unknown;
  try {
    value = load(text);
  } catch (err) {
    throw new Error((err as Error).message.split("\n")[0]);
  }
  let nodes = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (++nodes > maxNodes) throw new Error(`more than ${maxNodes} values (aliases counted each time they are used); no frontmatter needs that`);
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === "object") stack.push(...Object.values(v));
  }
  return value;
}
