/** A plain `{ … }` object (not an array, a class instance or null): what config files and JSON give. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** The entries of `record` that `ok` keeps, as a new object. */
export function keepEntries<T>(record: Readonly<Record<string, T>>, ok: (key: string, value: T) => boolean): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k, v]) => ok(k, v)));
}

/** `o` without its undefined values: spread over defaults, it overrides only what it sets. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
