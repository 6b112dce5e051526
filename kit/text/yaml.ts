/**
 * YAML for frontmatter (SKILL.md, Markdown commands): js-yaml, the parser gray-matter and cosmiconfig
 * use, because it loads in a fifth of the time of `yaml` and frontmatter is read on every start (the
 * bundled skills). js-yaml shares an aliased node instead of copying it, so a "billion laughs" file
 * costs nothing to parse but would explode when walked or stringified later: a parsed value is
 * refused when walking it (aliases counted every time) passes `maxNodes`. Simple frontmatter is read
 * without it (`simpleFrontmatter`), so js-yaml loads only for a file that needs it.
 */
import { createRequire } from "node:module";
import type { load as Load } from "js-yaml";

export const MAX_YAML_NODES = 10_000;

let loadYaml: typeof Load | undefined;
/** js-yaml, loaded on first use: the frontmatter most files have (and the bundled skills') needs none. */
function load(text: string): unknown {
  loadYaml ??= (createRequire(import.meta.url)("js-yaml") as { load: typeof Load }).load;
  return loadYaml(text);
}

const KEY_LINE = /^([A-Za-z_][\w-]*):(?: +(.*?))? *$/;
/** A plain scalar YAML reads as this very string: no indicator, no typed value (number, bool, null), no `: `. */
const PLAIN = /^[A-Za-z(][^\t#{}[\]&*!|>%@`]*$/;
const TYPED = /^(true|false|null|yes|no|on|off|y|n)$/i;

function plainString(value: string): string | undefined {
  return PLAIN.test(value) && !value.includes(": ") && !value.endsWith(":") && !TYPED.test(value) ? value : undefined;
}

/**
 * The frontmatter most SKILL.md files have, read without a YAML parser: top-level `key: plain words`,
 * `key: >-` with one-indented, unbroken lines folded into one, and `key:` over one level of such
 * `sub: words`. Anything else (quotes, lists, comments, blank lines in a block, a typed value, a
 * repeated key) is undefined: then js-yaml reads it. Where it answers, js-yaml's answer is the same
 * (tests/kit/yaml-fast.test.ts compares them).
 */
export function simpleFrontmatter(text: string): Record<string, unknown> | undefined {
  const lines = text.replace(/\r?\n$/, "").split(/\r?\n/);
  const out: Record<string, unknown> = {};
  const indentOf = (line: string) => /^ */.exec(line)![0].length;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const m = KEY_LINE.exec(line);
    if (!m || m[1] === "__proto__" || Object.hasOwn(out, m[1])) return undefined;
    const [, key, value = ""] = m;
    // The indented lines under this key.
    let end = i + 1;
    while (end < lines.length && lines[end] !== "" && indentOf(lines[end]) > 0) end++;
    const body = lines.slice(i + 1, end);
    const indent = body.length ? indentOf(body[0]) : 0;
    if (body.some((l) => indentOf(l) !== indent || /[\t ]$/.test(l) || l.includes("\t"))) return undefined;
    if (value === ">-") {
      if (!body.length) return undefined;
      out[key] = body.map((l) => l.slice(indent)).join(" ");
    } else if (value === "") {
      if (!body.length) return undefined;
      const nested: Record<string, string> = {};
      for (const l of body) {
        const n = KEY_LINE.exec(l.slice(indent));
        const v = n?.[2] === undefined ? undefined : plainString(n[2]);
        if (!n || v === undefined || n[1] === "__proto__" || Object.hasOwn(nested, n[1])) return undefined;
        nested[n[1]] = v;
      }
      out[key] = nested;
    } else {
      const v = plainString(value);
      if (v === undefined || body.length) return undefined;
      out[key] = v;
    }
    i = end;
  }
  return Object.keys(out).length ? out : undefined;
}

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
  const simple = simpleFrontmatter(text);
  if (simple) return { value: simple, quoted: false };
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
