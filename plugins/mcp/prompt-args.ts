/**
 * Arguments of `/mcp__<server>__<prompt> ...` as the prompt's named arguments. Accepts
 * `key=value` pairs (values may be quoted) or plain words in the declared order; the last
 * argument takes the rest of the line, so `/mcp__x__summarize some long text` just works.
 */
export interface PromptArgumentSpec {
  name: string;
  required?: boolean;
}

export function argumentHint(specs: readonly PromptArgumentSpec[]): string | undefined {
  if (!specs.length) return undefined;
  return specs.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

/** Split on whitespace, keeping "quoted strings" together. */
function tokens(line: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    out.push({ text: m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]), start: m.index });
  }
  return out;
}

export function parsePromptArgs(line: string, specs: readonly PromptArgumentSpec[]): Record<string, string> {
  const args: Record<string, string> = {};
  const text = line.trim();
  if (!specs.length || text === "") return checkRequired(args, specs);
  const names = new Set(specs.map((s) => s.name));
  const keyed = /^([A-Za-z_][\w-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)(\s+|$)/;
  const first = keyed.exec(text);
  if (first && names.has(first[1])) {
    let rest = text;
    for (let m = keyed.exec(rest); m && names.has(m[1]); m = keyed.exec(rest)) {
      const raw = m[2];
      args[m[1]] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw.startsWith("'") ? raw.slice(1, -1) : raw;
      rest = rest.slice(m[0].length);
    }
    if (rest.trim()) throw new Error(`could not read the arguments after "${rest.trim().slice(0, 40)}"; use key=value pairs (${[...names].join(", ")})`);
    return checkRequired(args, specs);
  }
  const words = tokens(text);
  specs.forEach((spec, i) => {
    if (i >= words.length) return;
    // The last declared argument takes the rest of the line as written.
    args[spec.name] = i === specs.length - 1 && words.length > specs.length ? text.slice(words[i].start) : words[i].text;
  });
  return checkRequired(args, specs);
}

function checkRequired(args: Record<string, string>, specs: readonly PromptArgumentSpec[]): Record<string, string> {
  const missing = specs.filter((s) => s.required && !(s.name in args)).map((s) => s.name);
  if (missing.length) throw new Error(`missing required argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}; usage: ${argumentHint(specs)}`);
  return args;
}
