/** `agent audit [--tail N] [--json]`: the last records of the audit log. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../config.js";
import { AgentError } from "../errors.js";
import type { CliContext } from "./context.js";
import { oneLine, table } from "./format.js";
import { parseSubArgs } from "./main.js";

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseSubArgs(args, { json: { type: "boolean" }, tail: { type: "string", short: "n" } }, "Usage: agent audit [--tail N] [--json]", false);
  if (!parsed) return 0;
  const tail = parsed.values.tail === undefined ? 20 : Number(parsed.values.tail);
  if (!Number.isInteger(tail) || tail <= 0) throw new AgentError("E_USAGE", `--tail must be a positive whole number; got "${parsed.values.tail}"`);
  const loaded = await loadConfig({ cwd: ctx.cwd });
  if (loaded.config.audit?.enabled === false) {
    process.stderr.write("agent: the audit log is disabled in config (audit.enabled: false).\n");
    return 0;
  }
  const file = path.resolve(loaded.projectRoot, loaded.config.audit?.path ?? ".agent/audit.jsonl");
  if (!existsSync(file)) {
    process.stderr.write(`agent: no audit log yet at ${file}\n`);
    return 0;
  }
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).slice(-tail);
  const records = lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return []; // a torn last line after a power cut: skip it
    }
  });
  if (parsed.values.json) {
    for (const r of records) process.stdout.write(JSON.stringify(r) + "\n");
    return 0;
  }
  const rows = records.map((r) => [
    String(r.time ?? "").replace("T", " ").slice(0, 19),
    String(r.kind ?? ""),
    String(r.source ?? ""),
    String(r.name ?? ""),
    String(r.outcome ?? ""),
    r.durationMs !== undefined ? `${r.durationMs}ms` : "",
    oneLine(r.error ? String(r.error) : r.args !== undefined ? JSON.stringify(r.args) : "", 60),
  ]);
  process.stdout.write(table(rows, ["TIME", "KIND", "SOURCE", "NAME", "OUTCOME", "TIME(ms)", "DETAIL"]) + "\n");
  return 0;
}
