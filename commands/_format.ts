/** Small text helpers the built-in slash commands share. */

export { oneLine } from "../kit/index.js";

/** Rows as aligned columns, two spaces apart, the last column unpadded. */
export function columns(rows: string[][], indent = "  "): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd());
}
