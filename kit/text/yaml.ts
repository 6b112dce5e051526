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

/** Characters that make an unquoted YAML value mean something else (`@Observable`, `a: b`, `[x]`…). */
const YAML_SPECIAL = /[{}[\]*&#!|>%@`]|: /;

/** Top-level `key: value` lines whose unquoted value YAML would misread, double-quoted. */
function quoteProblemValues(yaml: string): string {
  return yaml
    .split("\n")
    .map((line) => {
      const m = /^([A-Za-z_-]+):[ \t]+(.+)$/.exec(line);
      if (!m) return line;
      const value = m[2].trim();
      if (/^(".*"|'.*')$/.test(value) || !YAML_SPECIAL.test(value)) return line;
      return `${m[1]}: ${JSON.stringify(value)}`;
    })
    .join("\n");
}

/**
 * Frontmatter as Claude Code reads it: YAML, and where that fails, again with each top-level `key: value`
 * line whose value YAML misreads taken as the plain string it was meant to be (`description: @Observable
 * for state`, `description: Use when: the user asks`). `quoted` says the second reading was needed.
 * Throws the first reading's error when neither parses.
 */
export function parseFrontmatterYaml(text: string): { value: unknown; quoted: boolean } {
  try {
    return { value: parseYaml(text), quoted: false };
  } catch (err) {
    const retry = quoteProblemValues(text);
    if (retry === text) throw err;
    try {
      return { value: parseYaml(retry), quoted: true };
    } catch {
      throw err;
    }
  }
}
