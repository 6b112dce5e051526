/**
 * Frozen copies: what hooks and listeners are handed, so that no handler can change a value another
 * part of the host (or a later handler) relies on. Plain objects and arrays are copied; functions and
 * other objects (class instances) are kept as they are, since they are code rather than data.
 */

/** Deeper than this, a copy keeps `null` rather than recurse further (inputs from outside may be hostile). */
const MAX_DEPTH = 200;

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function copy(v: unknown, depth: number, seen: Map<object, unknown>): unknown {
  if (v === null || typeof v !== "object") return v;
  const hit = seen.get(v);
  if (hit !== undefined) return hit;
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    seen.set(v, out);
    for (const x of v) out.push(copy(x, depth + 1, seen));
    return Object.freeze(out);
  }
  if (!isPlain(v)) return v;
  const out: Record<string, unknown> = {};
  seen.set(v, out);
  for (const k of Object.keys(v)) set(out, k, copy((v as Record<string, unknown>)[k], depth + 1, seen));
  return Object.freeze(out);
}

/** An own `__proto__` key (JSON.parse makes them) must stay a key, not become the prototype. */
function set(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** A deep, frozen copy of plain data (objects, arrays, primitives). */
export function freezeCopy<T>(value: T): T {
  return copy(value, 0, new Map()) as T;
}

/** A deep, mutable copy of plain data: what the gate keeps of a call's input, apart from the caller's object. */
export function plainCopy<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_DEPTH) return null as T;
  if (Array.isArray(value)) return value.map((x) => plainCopy(x, depth + 1)) as T;
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) set(out, k, plainCopy((value as Record<string, unknown>)[k], depth + 1));
  return out as T;
}
