/** `/audit [n]`: the last audit records of this project (default 10), calls first of all. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineCommand } from "../core/index.js";
import { parseJsonLines } from "../kit/index.js";
import { columns, oneLine } from "./_format.js";

export default defineCommand({
  name: "audit",
  description: "Show the last audit records",
  argumentHint: "[n]",
  async run(args, { host }) {
    const n = args.trim() ? Number(args.trim()) : 10;
    if (!Number.isInteger(n) || n <= 0) return `Usage: /audit [n], n a positive whole number; got "${args.trim()}".`;
    if (host.config.audit?.enabled === false) return "The audit log is disabled in config (audit.enabled: false).";
    const file = path.resolve(host.workspace.root, host.config.audit?.path ?? ".agent/audit.jsonl");
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      return `No audit log yet at ${file}.`;
    }
    const records = parseJsonLines(text).slice(-n); // a torn last line after a crash is skipped
    const rows = records.map((r) => [String(r.time ?? "").slice(11, 19), String(r.kind ?? ""), String(r.name ?? ""), String(r.outcome ?? ""), oneLine(String(r.error ?? r.by ?? ""), 60)]);
    return [`Last ${records.length} of ${file}:`, ...columns(rows), "", "All of it: agent audit --tail N --json"].join("\n");
  },
});
