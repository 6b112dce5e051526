/**
 * JSON files as people write them: a UTF-8 BOM (Windows editors add one) is accepted, and a syntax
 * error says where, as line and column, with what the parser expected (jsonc-parser finds the spot;
 * JSON.parse on Node 20 often gives neither).
 */
import { ConfigError } from "../errors.js";

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} (line ${line}, column ${column})`);
    this.name = "JsonSyntaxError";
  }
}

const WHAT: Record<number, string> = {
  1: "invalid symbol",
  2: "invalid number format",
  3: "a property name was expected",
  4: "a value was expected",
  5: "a colon was expected",
  6: "a comma was expected",
  7: "a closing brace was expected",
  8: "a closing bracket was expected",
  9: "the end of the file was expected",
  10: "comments are not allowed in JSON",
  11: "the file ended too early",
  12: "the file ended inside a comment",
  13: "the file ended inside a string",
  14: "the file ended inside a number",
  15: "invalid unicode escape",
  16: "invalid escape character",
  17: "invalid character",
};

/** Parse JSON text; throws a `JsonSyntaxError` naming the line and column of the first mistake. */
export async function parseJson(text: string): Promise<unknown> {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(clean);
  } catch (err) {
    const { parse } = await import("jsonc-parser");
    const errors: { error: number; offset: number; length: number }[] = [];
    parse(clean, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (!first) throw err;
    const before = clean.slice(0, first.offset);
    const line = before.split("\n").length;
    const column = first.offset - before.lastIndexOf("\n");
    throw new JsonSyntaxError(WHAT[first.error] ?? "invalid JSON", line, column);
  }
}

/** Parse a JSON config file's text; a syntax error is a `ConfigError` naming the file, line and column. */
export async function parseJsonConfig(text: string, file: string): Promise<unknown> {
  try {
    return await parseJson(text);
  } catch (err) {
    throw new ConfigError(file, [{ path: "", message: `could not be parsed as JSON: ${(err as Error).message}` }]);
  }
}

/**
 * The records of a JSON Lines file (the audit log, a transcript): one object per line; a line that does
 * not parse (torn by a crash mid-write) or is not an object is skipped.
 */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (v && typeof v === "object" && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // torn line: skipped
    }
  }
  return out;
}
