/**
 * picomatch, loaded on first use. Loading it costs ~2.5 ms of every start-up (bench/startup.mjs),
 * and most commands match no glob at all: permission path rules, `grep` and `list_files` globs and
 * MCP tool filters compile theirs when they are first used.
 */
import { createRequire } from "node:module";
import type Picomatch from "picomatch";

type Pm = typeof Picomatch;
let loaded: Pm | undefined;
const load = (): Pm => (loaded ??= createRequire(import.meta.url)("picomatch") as Pm);

/** `picomatch(glob, options)`: a matcher for one glob or a list of them. */
export function picomatch(glob: Picomatch.Glob, options?: Picomatch.PicomatchOptions): Picomatch.Matcher {
  return load()(glob, options);
}

/** `picomatch.scan(glob)`: the glob split into its fixed base and the pattern after it. */
picomatch.scan = ((input, options) => load().scan(input, options)) as Pm["scan"];

/** Only `*`, `**` and `?` are special: commands are full of `!`, braces and brackets. */
const SUBJECT_GLOB = { bash: true, dot: true, nonegate: true, noextglob: true, nobrace: true, nobracket: true } as const;

/**
 * A pattern inside a rule's parentheses: a glob (picomatch, with `*` matching any run of characters,
 * `/` included, and dot files too); a trailing `:*` (as in `npm test:*`) means "this prefix as whole
 * words, then anything".
 */
export function wildcardMatcher(pattern: string): (s: string) => boolean {
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2);
    return (s) => s === prefix || s.startsWith(prefix + " ") || s.startsWith(prefix + ":");
  }
  return picomatch(pattern, SUBJECT_GLOB);
}
