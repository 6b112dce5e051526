/** Shape checks on values read from servers and config files (JSON: objects, arrays, primitives). */

/** An object that is neither null nor an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A record made by `{}` or JSON.parse (not a class instance, nothing inherited to enumerate). */
export function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
