/** Output caps: keep the head, say exactly how much was cut. Never cut silently. */

export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface Capped {
  text: string;
  truncated: boolean;
  /** Size of the original output in bytes (UTF-8). */
  bytes: number;
}

export function capOutput(text: string, maxBytes: number): Capped {
  // Fast path: a string of N UTF-16 units is at most 3N bytes.
  if (text.length * 3 <= maxBytes) return { text, truncated: false, bytes: Buffer.byteLength(text) };
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return { text, truncated: false, bytes: buf.length };
  let end = maxBytes;
  // Step back to a character boundary (continuation bytes are 10xxxxxx).
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  const head = buf.subarray(0, end).toString("utf8");
  const cut = buf.length - end;
  return {
    text: `${head}\n[output truncated: ${cut} of ${buf.length} bytes cut; the first ${end} bytes are shown]`,
    truncated: true,
    bytes: buf.length,
  };
}
