/** Small output helpers for the CLI. */
import { printable, printableJson } from "./render/_style.js";

/** `value` as indented JSON for `stream`: on a terminal, what JSON.stringify leaves raw is escaped too (printableJson). */
export function jsonFor(value: unknown, stream: { isTTY?: boolean } = process.stdout): string {
  const json = JSON.stringify(value, null, 2);
  return stream.isTTY ? printableJson(json) : json;
}

export function printJson(value: unknown): void {
  process.stdout.write(jsonFor(value) + "\n");
}

/**
 * A plain text table; columns sized to content, last column unpadded. Cells come from servers and
 * plugins: for a terminal (by default, when stdout is one) their control characters are shown as
 * `\xNN` (`printable`) before the columns are sized, so the columns line up with what is shown.
 */
export function table(rows: string[][], header?: string[], forTerminal = !!process.stdout.isTTY): string {
  const all = (header ? [header, ...rows] : rows).map((r) => (forTerminal ? r.map((c) => printable(c ?? "")) : r));
  if (all.length === 0) return "";
  const widths = all[0].map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? "").padEnd(widths[i]))).join("  ").trimEnd())
    .join("\n");
}

export { oneLine } from "../kit/index.js";
