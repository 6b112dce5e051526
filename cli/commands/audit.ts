/** `agent audit [--tail N] [--json]`: the last records of the audit log. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { AgentError, type PreparedHost } from "../../core/index.js";
import { oneLine, table } from "../format.js";
import { defineAppCommand } from "./_define.js";

export default defineAppCommand({
  name: "audit",
  description: "show the audit log [--tail N] [--json]",
  usage: "[--tail N] [--json]",
  options: {
    tail: { type: "string", short: "n", valueName: "<N>", description: "how many of the last records (default 20)" },
    json: { type: "boolean", description: "print the records as JSON lines" },
  },
  positionals: false,
  run: (ctx) => show(ctx.values, ctx),
});

async function show(values: { tail?: string; json?: boolean }, ctx: { prepare(): Promise<PreparedHost> }): Promise<number> {
  const tail = values.tail === undefined ? 20 : Number(values.tail);
  if (!Number.isInteger(tail) || tail <= 0) throw new AgentError("E_USAGE", `--tail must be a positive whole number; got "${values.tail}"`);
  const loaded = await ctx.prepare();
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
  if (values.json) {
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
