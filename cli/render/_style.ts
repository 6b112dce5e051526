/** Terminal styling that respects NO_COLOR, FORCE_COLOR, TERM=dumb and non-TTY output. */

export interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
  /** A terminal's "resize" event. */
  on?(event: "resize", listener: () => void): unknown;
  off?(event: "resize", listener: () => void): unknown;
}

/** Colours for this stream: NO_COLOR wins, then FORCE_COLOR, then "is it a terminal". */
export function useColor(stream: Output, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  return !!stream.isTTY && env.TERM !== "dumb";
}

export type Style = ReturnType<typeof createStyle>;

export function createStyle(enabled: boolean) {
  const wrap = (open: number, close: number) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    cyan: wrap(36, 39),
    gray: wrap(90, 39),
  };
}

/** Remove ANSI escape sequences (for measuring and for tests). */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}

/**
 * Text from outside (a command the model wrote, a file's content, a server's question) made safe to
 * print: control characters other than newline and tab are shown as `\xNN` instead of acting on the
 * terminal, so an escape sequence cannot erase or rewrite what a prompt shows; bidirectional overrides
 * and isolates (U+202A-U+202E, U+2066-U+2069), which reorder what follows them on the line, as `\uNNNN`.
 */
export function printable(s: string): string {
  if (!UNPRINTABLE_TEST.test(s)) return s;
  return s.replace(UNPRINTABLE, (c, i: number) =>
    // A CRLF line's \r (or a last one) does nothing visible: dropped, so Windows files read as they are.
    c === "\r" && (s[i + 1] === "\n" || i === s.length - 1)
      ? ""
      : c.charCodeAt(0) > 0xff
        ? `\\u${c.charCodeAt(0).toString(16)}`
        : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE_TEST = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/**
 * What the CLI writes to `stream` from outside (a server's tool list, a plugin's message, a tool's
 * output): on a terminal, shown and not obeyed (`printable`); piped or redirected, exactly as written.
 */
/** Whether `stream` is a terminal that takes cursor controls (`\r\x1b[K`, `\x1b[0J`): not with TERM=dumb. */
export function movesCursor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return !!stream.isTTY && env.TERM !== "dumb";
}

export function printableFor(stream: { isTTY?: boolean }, s: string): string {
  return stream.isTTY ? printable(s) : s;
}

/**
 * JSON for a terminal. JSON.stringify escapes ESC, BEL and the other C0 controls itself, but leaves raw
 * what a terminal may still act on: DEL, the C1 controls (`\x9b` is a CSI on some terminals) and the
 * bidirectional overrides. They can only be inside strings, where `\uNNNN` is the same JSON value.
 */
export function printableJson(json: string): string {
  return RAW_IN_JSON_TEST.test(json) ? json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) : json;
}
// eslint-disable-next-line no-control-regex
const RAW_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const RAW_IN_JSON_TEST = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
